// AODV in ns-3 (3.37): the reference side of the comparison with manetlab's
// AODV. 802.11b ad hoc, YansWifi, 1 Mbps DSSS constant rate for data, control
// and broadcast frames, RangePropagationLossModel (a unit disk: received at
// full power within MaxRange, not at all beyond, so no interference from
// beyond the range either), ConstantSpeedPropagationDelay. ns-3's aodv module
// with every attribute at its default (expanding ring search TTL 1,3,5,7 then
// NetDiameter 35, hellos every 1 s, 0-10 ms jitter on every broadcast).
// Data: UDP, 64-byte payload, to port 9.
//   --case=grid  10x10 grid, 100 m apart, MaxRange 150 m (8 neighbours,
//                9 hops corner to corner); node 0 sends 10 packets to node 99,
//                one a second from t=1 s; the run lasts 15 s.
//   --case=rwp   50 nodes, random waypoint in 1000x1000 m, speed U[1,10] m/s,
//                pause 0, MaxRange 250 m; 10 flows between random distinct
//                source/destination pairs, 4 packets/s each from 10 s (plus a
//                per-flow phase U[0,250 ms)) until 90 s; the run lasts 100 s.
//   --run=N      RngRun (the seed is 1).
// Prints key=value lines (see PrintResults). Counting:
//  * AODV frames: every IPv4 transmission of a UDP port-654 packet on the wifi
//    interface (Ipv4L3Protocol "Tx"), so every relay counts; a hello is a RREP
//    with destination == originator sent to the broadcast address with TTL 1.
//    MAC retransmissions are not counted there (the *_phy_frames keys do).
//  * hops: the IP TTL at the receiver. The source sends with TTL 64 and every
//    relay's Ipv4L3Protocol::IpForward decrements it (the receiver does not),
//    so hops = 65 - TTL. A packet that found no route when sent is looped
//    back through the lo interface, queued by AODV and later sent through
//    IpForward at the source itself, which decrements the TTL; AODV's
//    SendPacketFromQueue adds 1 to the TTL first, so 65 - TTL holds for those
//    too. The program also counts each data packet's IP transmissions on the
//    wifi interface and reports the packets where the two differ.
#include "ns3/aodv-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include "ns3/propagation-module.h"
#include "ns3/wifi-module.h"
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>
using namespace ns3;

static const uint16_t DATA_PORT = 9;
static const uint16_t AODV_PORT = 654;
static uint32_t PAYLOAD = 64; // 512 in --case=rwp50

struct PktInfo
{
    int64_t sent = -1;     // send time (ns)
    int64_t recv = -1;     // first delivery time (ns)
    int ttl = -1;          // TTL at the receiver
    uint32_t ipTx = 0;     // IPv4 transmissions on wifi (source + relays)
    bool deferred = false; // went through lo (no route when sent)
    uint32_t phyTx = 0;    // PHY transmissions (MAC retries included)
};

static std::map<std::pair<uint32_t, uint32_t>, PktInfo> g_pkts; // (flow, seq)
static std::vector<Ipv4Address> g_addr;

// AODV counters
static uint64_t g_rreq = 0, g_rrep = 0, g_rerr = 0, g_rrepAck = 0, g_hello = 0;
static uint64_t g_ctrlBytes = 0, g_helloBytes = 0;
static uint64_t g_rreqOrig = 0, g_rreqRetry = 0;
// (node, destination) -> the time (ns) and TTL of its last RREQ origination
static std::map<std::pair<int, int>, std::pair<int64_t, int>> g_lastOrig;
static uint64_t g_rreqPhy = 0, g_rrepPhy = 0, g_rerrPhy = 0;
static uint64_t g_ctrlPhy = 0, g_helloPhy = 0, g_dataPhy = 0, g_arpPhy = 0;
static std::vector<std::string> g_rreqLog; // originations: t_ms:node->dst:ttl
static bool g_logRreq = false, g_trace = false;
static std::map<int, uint64_t> g_ctrlDeferred; // AODV unicasts looped back for want of a route, by type

// node index of a 10.1.x.y address (10.1.0.1 is node 0)
static int NodeOf(Ipv4Address a)
{
    return (int)(a.Get() & 0xffff) - 1;
}

struct Flow
{
    uint32_t src, dst;
    Ptr<Socket> sock;
    uint32_t seq = 0;
};
static std::vector<Flow> g_flows;

static bool ReadData(Ptr<Packet> p, uint32_t& flow, uint32_t& seq, int64_t& t)
{
    if (p->GetSize() < 16)
        return false;
    uint8_t buf[16];
    p->CopyData(buf, 16);
    memcpy(&flow, buf, 4);
    memcpy(&seq, buf + 4, 4);
    memcpy(&t, buf + 8, 8);
    return true;
}

static void SendData(uint32_t f, Time interval, Time stop)
{
    Flow& fl = g_flows[f];
    std::vector<uint8_t> buf(PAYLOAD, 0);
    int64_t now = Simulator::Now().GetNanoSeconds();
    memcpy(buf.data(), &f, 4);
    memcpy(buf.data() + 4, &fl.seq, 4);
    memcpy(buf.data() + 8, &now, 8);
    g_pkts[{f, fl.seq}].sent = now;
    fl.sock->SendTo(Create<Packet>(buf.data(), PAYLOAD), 0, InetSocketAddress(g_addr[fl.dst], DATA_PORT));
    fl.seq++;
    if (Simulator::Now() + interval < stop)
        Simulator::Schedule(interval, &SendData, f, interval, stop);
}

static void Sink(Ptr<Socket> s)
{
    while (s->Recv())
    {
    }
}

// Ipv4L3Protocol LocalDeliver: packet without its IP header
static void LocalDeliver(const Ipv4Header& ip, Ptr<const Packet> pkt, uint32_t)
{
    if (ip.GetProtocol() != UdpL4Protocol::PROT_NUMBER)
        return;
    Ptr<Packet> p = pkt->Copy();
    UdpHeader udp;
    p->RemoveHeader(udp);
    if (udp.GetDestinationPort() != DATA_PORT)
        return;
    uint32_t f, seq;
    int64_t t;
    if (!ReadData(p, f, seq, t))
        return;
    PktInfo& pi = g_pkts[{f, seq}];
    if (pi.recv >= 0)
        return; // duplicate
    pi.recv = Simulator::Now().GetNanoSeconds();
    pi.ttl = ip.GetTtl();
}

// Ipv4L3Protocol Tx: packet with its IP header, on interface `iface`
static void IpTx(Ptr<const Packet> pkt, Ptr<Ipv4> ipv4, uint32_t iface)
{
    Ptr<Packet> p = pkt->Copy();
    Ipv4Header ip;
    p->RemoveHeader(ip);
    if (ip.GetProtocol() != UdpL4Protocol::PROT_NUMBER)
        return;
    UdpHeader udp;
    p->RemoveHeader(udp);
    bool lo = DynamicCast<LoopbackNetDevice>(ipv4->GetNetDevice(iface)) != nullptr;
    if (udp.GetDestinationPort() == DATA_PORT)
    {
        uint32_t f, seq;
        int64_t t;
        if (!ReadData(p, f, seq, t))
            return;
        PktInfo& pi = g_pkts[{f, seq}];
        if (lo)
            pi.deferred = true;
        else
            pi.ipTx++;
        if (g_trace)
            printf("# data t_ms=%.3f node=%u %s flow=%u seq=%u ttl=%u\n", Simulator::Now().GetMicroSeconds() / 1000.0,
                   ipv4->GetObject<Node>()->GetId(), lo ? "lo" : "tx", f, seq, (unsigned)ip.GetTtl());
        return;
    }
    if (udp.GetDestinationPort() != AODV_PORT)
        return;
    if (lo)
    {
        // An AODV unicast (reply, error, reply-ack) whose next hop had no
        // valid route: AODV's RouteOutput loops it back and starts a route
        // discovery for that neighbour.
        aodv::TypeHeader lt;
        p->RemoveHeader(lt);
        if (lt.IsValid())
            g_ctrlDeferred[lt.Get()]++;
        return;
    }
    uint32_t bytes = pkt->GetSize();
    aodv::TypeHeader th;
    p->RemoveHeader(th);
    if (!th.IsValid())
        return;
    if (g_trace)
    {
        std::ostringstream os;
        Ptr<Packet> q = p->Copy();
        os << "# tx t_ms=" << Simulator::Now().GetMicroSeconds() / 1000.0 << " node=" << NodeOf(ip.GetSource())
           << " to=" << ip.GetDestination() << " ttl=" << (unsigned)ip.GetTtl() << " " << th.Get() << " ";
        if (th.Get() == aodv::AODVTYPE_RREQ)
        {
            aodv::RreqHeader h;
            q->RemoveHeader(h);
            os << "origin=" << NodeOf(h.GetOrigin()) << " dst=" << NodeOf(h.GetDst()) << " id=" << h.GetId()
               << " hops=" << (unsigned)h.GetHopCount();
        }
        else if (th.Get() == aodv::AODVTYPE_RREP)
        {
            aodv::RrepHeader h;
            q->RemoveHeader(h);
            os << "origin=" << NodeOf(h.GetOrigin()) << " dst=" << NodeOf(h.GetDst())
               << " hops=" << (unsigned)h.GetHopCount() << " ack=" << h.GetAckRequired();
        }
        else if (th.Get() == aodv::AODVTYPE_RERR)
        {
            aodv::RerrHeader h;
            q->RemoveHeader(h);
            os << "unreachable=" << (unsigned)h.GetDestCount();
            std::pair<Ipv4Address, uint32_t> un;
            while (h.RemoveUnDestination(un))
                os << " " << NodeOf(un.first);
        }
        bool hello = th.Get() == aodv::AODVTYPE_RREP && ip.GetTtl() == 1 &&
                     (ip.GetDestination().IsBroadcast() || ip.GetDestination() == Ipv4Address("10.1.255.255"));
        if (!hello)
            printf("%s\n", os.str().c_str());
        else
            printf("# hello t_ms=%.3f node=%d\n", Simulator::Now().GetMicroSeconds() / 1000.0, NodeOf(ip.GetSource()));
    }
    switch (th.Get())
    {
    case aodv::AODVTYPE_RREQ: {
        aodv::RreqHeader rq;
        p->RemoveHeader(rq);
        g_rreq++;
        g_ctrlBytes += bytes;
        if (rq.GetOrigin() == ip.GetSource() && rq.GetHopCount() == 0)
        {
            g_rreqOrig++;
            // A later try of the same discovery: the next TTL of the ring
            // (or the diameter again) after the ring's wait, 2 x 40 ms x
            // (TTL + 2), or NetTraversalTime x 2^k at the diameter, give
            // or take the two 0-10 ms jitters (ScheduleRreqRetry).
            {
                int me = NodeOf(ip.GetSource()), d = NodeOf(rq.GetDst()), ttl = ip.GetTtl();
                int64_t now = Simulator::Now().GetNanoSeconds();
                auto it = g_lastOrig.find({me, d});
                if (it != g_lastOrig.end())
                {
                    int64_t gap = now - it->second.first;
                    int ttl0 = it->second.second;
                    bool retry = false;
                    if (ttl0 < 35)
                        retry = (ttl == ttl0 + 2 || ttl == 35) && std::llabs(gap - 80000000LL * (ttl0 + 2)) <= 12000000LL;
                    else
                        for (int k = 0; k < 4 && !retry; k++)
                            retry = ttl == 35 && std::llabs(gap - (2800000000LL << k)) <= 12000000LL;
                    if (retry)
                        g_rreqRetry++;
                }
                g_lastOrig[{me, d}] = {now, ttl};
            }
            if (g_logRreq)
            {
                std::ostringstream os;
                os << Simulator::Now().GetMicroSeconds() / 1000.0 << "ms:";
                os << (ip.GetSource().Get() & 0xffff) - 1 << "->" << (rq.GetDst().Get() & 0xffff) - 1
                   << ":ttl" << (unsigned)ip.GetTtl();
                g_rreqLog.push_back(os.str());
            }
        }
        break;
    }
    case aodv::AODVTYPE_RREP: {
        aodv::RrepHeader rp;
        p->RemoveHeader(rp);
        bool bcast = ip.GetDestination().IsBroadcast() || ip.GetDestination().IsSubnetDirectedBroadcast(Ipv4Mask("255.255.0.0"));
        if (bcast && rp.GetDst() == rp.GetOrigin() && ip.GetTtl() == 1)
        {
            g_hello++;
            g_helloBytes += bytes;
        }
        else
        {
            g_rrep++;
            g_ctrlBytes += bytes;
        }
        break;
    }
    case aodv::AODVTYPE_RERR:
        g_rerr++;
        g_ctrlBytes += bytes;
        break;
    case aodv::AODVTYPE_RREP_ACK:
        g_rrepAck++;
        g_ctrlBytes += bytes;
        break;
    }
}

static void IpDrop(std::string ctx, const Ipv4Header& ip, Ptr<const Packet>, Ipv4L3Protocol::DropReason r, Ptr<Ipv4>, uint32_t)
{
    printf("# ipdrop t_ms=%.3f %s src=%d dst=%d proto=%u reason=%d\n", Simulator::Now().GetMicroSeconds() / 1000.0,
           ctx.c_str(), NodeOf(ip.GetSource()), NodeOf(ip.GetDestination()), (unsigned)ip.GetProtocol(), (int)r);
}

static void ArpDrop(std::string ctx, Ptr<const Packet>)
{
    printf("# arpdrop t_ms=%.3f %s\n", Simulator::Now().GetMicroSeconds() / 1000.0, ctx.c_str());
}

static void MacDrop(std::string ctx, WifiMacDropReason r, Ptr<const WifiMpdu> m)
{
    printf("# macdrop t_ms=%.3f %s reason=%d to=%s\n", Simulator::Now().GetMicroSeconds() / 1000.0, ctx.c_str(), (int)r,
           m ? "" : "?");
}

// PHY transmissions, MAC retransmissions included
static void PhyTxBegin(Ptr<const Packet> pkt, double)
{
    Ptr<Packet> p = pkt->Copy();
    WifiMacHeader mh;
    p->RemoveHeader(mh);
    if (!mh.IsData())
        return;
    LlcSnapHeader llc;
    p->RemoveHeader(llc);
    if (llc.GetType() == ArpL3Protocol::PROT_NUMBER)
    {
        g_arpPhy++;
        if (g_trace)
        {
            ArpHeader ah;
            p->RemoveHeader(ah);
            printf("# arp t_ms=%.3f %s %d->%d\n", Simulator::Now().GetMicroSeconds() / 1000.0,
                   ah.IsRequest() ? "request" : "reply", NodeOf(Ipv4Address::ConvertFrom(ah.GetSourceIpv4Address())),
                   NodeOf(Ipv4Address::ConvertFrom(ah.GetDestinationIpv4Address())));
        }
        return;
    }
    if (llc.GetType() != Ipv4L3Protocol::PROT_NUMBER)
        return;
    Ipv4Header ip;
    p->RemoveHeader(ip);
    if (ip.GetProtocol() != UdpL4Protocol::PROT_NUMBER)
        return;
    UdpHeader udp;
    p->RemoveHeader(udp);
    if (udp.GetDestinationPort() == DATA_PORT)
    {
        g_dataPhy++;
        uint32_t f, seq;
        int64_t t;
        if (ReadData(p, f, seq, t))
            g_pkts[{f, seq}].phyTx++;
    }
    else if (udp.GetDestinationPort() == AODV_PORT)
    {
        aodv::TypeHeader th;
        p->RemoveHeader(th);
        if (th.Get() == aodv::AODVTYPE_RREP && ip.GetTtl() == 1 && mh.GetAddr1().IsBroadcast())
        {
            g_helloPhy++;
            return;
        }
        g_ctrlPhy++;
        if (th.Get() == aodv::AODVTYPE_RREQ)
            g_rreqPhy++;
        else if (th.Get() == aodv::AODVTYPE_RREP)
            g_rrepPhy++;
        else if (th.Get() == aodv::AODVTYPE_RERR)
            g_rerrPhy++;
    }
}

// Every node's ARP cache gets a PERMANENT entry for every other node, so no
// ARP frame is ever sent. Not NeighborCacheHelper: its STATIC_AUTOGENERATED
// entries are invisible to aodv::Neighbors::LookupMacAddress (it accepts only
// ALIVE or PERMANENT ones), so AODV would never match a MAC transmission
// failure to a neighbour and would detect broken links by missed hellos only.
static void FillArpCaches(NodeContainer& nodes, NetDeviceContainer& devs, Ipv4InterfaceContainer& ifs)
{
    for (uint32_t i = 0; i < nodes.GetN(); i++)
    {
        Ptr<Ipv4L3Protocol> l3 = nodes.Get(i)->GetObject<Ipv4L3Protocol>();
        Ptr<ArpCache> cache = l3->GetInterface(l3->GetInterfaceForDevice(devs.Get(i)))->GetArpCache();
        for (uint32_t j = 0; j < nodes.GetN(); j++)
        {
            if (j == i)
                continue;
            ArpCache::Entry* e = cache->Add(ifs.GetAddress(j));
            e->SetMacAddress(devs.Get(j)->GetAddress());
            e->MarkPermanent();
        }
    }
}

static double Median(std::vector<double> v)
{
    if (v.empty())
        return -1;
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char** argv)
{
    std::string cas = "grid";
    uint32_t run = 1;
    bool verbose = false;
    std::string arp = "static";
    // rwp50's setting, each changeable (a case of one's own on the same
    // setup): nodes, square side (m), speed range (m/s), range (m), end (s).
    uint32_t nNodes = 50;
    double side = 1000.0, vmin = 1.0, vmax = 10.0, rwpRange = 250.0, end = 200.0;
    CommandLine cmd(__FILE__);
    cmd.AddValue("case", "grid|rwp|rwp50", cas);
    cmd.AddValue("run", "RngRun (seed 1)", run);
    cmd.AddValue("arp", "static (the default: every ARP cache filled before the start, as manetlab has no ARP) | dynamic (ns-3's ARP)", arp);
    cmd.AddValue("trace", "print every AODV frame sent, hellos excepted, and data drops", g_trace);
    cmd.AddValue("verbose", "also print every RREQ origination (time, node, TTL) and per-packet lines", verbose);
    cmd.AddValue("nodes", "rwp50: number of nodes", nNodes);
    cmd.AddValue("side", "rwp50: side of the square area (m)", side);
    cmd.AddValue("vmin", "rwp50: lowest speed (m/s)", vmin);
    cmd.AddValue("vmax", "rwp50: highest speed (m/s)", vmax);
    cmd.AddValue("range", "rwp50: radio range (m)", rwpRange);
    cmd.AddValue("end", "rwp50: run length (s); data stop 10 s before", end);
    cmd.Parse(argc, argv);
    if (cas != "grid" && cas != "rwp" && cas != "rwp50")
    {
        fprintf(stderr, "aodv: --case must be grid, rwp or rwp50\n");
        return 2;
    }
    if (arp != "dynamic" && arp != "static")
    {
        fprintf(stderr, "aodv: --arp must be dynamic or static\n");
        return 2;
    }
    g_logRreq = verbose;
    auto wall0 = std::chrono::steady_clock::now();
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(run);

    const bool grid = cas == "grid";
    const bool rwp50 = cas == "rwp50";
    const uint32_t n = grid ? 100 : rwp50 ? nNodes : 50;
    const double range = grid ? 150.0 : rwp50 ? rwpRange : 250.0;
    // rwp50: the held-back case: 200 s, steady-state random
    // waypoint, 512-byte packets from 10 s to 190 s.
    const double simEnd = grid ? 15.0 : rwp50 ? end : 100.0;
    const double dataStop = rwp50 ? end - 10.0 : 90.0;
    if (rwp50)
        PAYLOAD = 512;

    NodeContainer nodes;
    nodes.Create(n);
    MobilityHelper mob;
    if (grid)
    {
        Ptr<ListPositionAllocator> pos = CreateObject<ListPositionAllocator>();
        for (uint32_t i = 0; i < n; i++)
            pos->Add(Vector(50.0 + 100.0 * (i % 10), 50.0 + 100.0 * (i / 10), 1.5));
        mob.SetPositionAllocator(pos);
        mob.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    }
    else if (rwp50)
    {
        // Navidi-Camp's steady state: positions, speeds and the first
        // leg drawn from the stationary distribution (no warm-up).
        mob.SetMobilityModel("ns3::SteadyStateRandomWaypointMobilityModel", "MinSpeed", DoubleValue(vmin), "MaxSpeed",
                             DoubleValue(vmax), "MinPause", DoubleValue(0.0), "MaxPause", DoubleValue(0.0), "MinX",
                             DoubleValue(0.0), "MaxX", DoubleValue(side), "MinY", DoubleValue(0.0), "MaxY",
                             DoubleValue(side), "Z", DoubleValue(1.5));
    }
    else
    {
        ObjectFactory pf;
        pf.SetTypeId("ns3::RandomRectanglePositionAllocator");
        pf.Set("X", StringValue("ns3::UniformRandomVariable[Min=0.0|Max=1000.0]"));
        pf.Set("Y", StringValue("ns3::UniformRandomVariable[Min=0.0|Max=1000.0]"));
        Ptr<PositionAllocator> pa = pf.Create()->GetObject<PositionAllocator>();
        mob.SetPositionAllocator(pa);
        mob.SetMobilityModel("ns3::RandomWaypointMobilityModel", "Speed",
                             StringValue("ns3::UniformRandomVariable[Min=1.0|Max=10.0]"), "Pause",
                             StringValue("ns3::ConstantRandomVariable[Constant=0.0]"), "PositionAllocator",
                             PointerValue(pa));
    }
    mob.Install(nodes);

    WifiHelper wifi;
    wifi.SetStandard(WIFI_STANDARD_80211b);
    wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager", "DataMode", StringValue("DsssRate1Mbps"),
                                 "ControlMode", StringValue("DsssRate1Mbps"), "NonUnicastMode",
                                 StringValue("DsssRate1Mbps"));
    YansWifiChannelHelper ch;
    ch.SetPropagationDelay("ns3::ConstantSpeedPropagationDelayModel");
    ch.AddPropagationLoss("ns3::RangePropagationLossModel", "MaxRange", DoubleValue(range));
    YansWifiPhyHelper phy;
    phy.SetChannel(ch.Create());
    phy.Set("TxPowerStart", DoubleValue(20.0));
    phy.Set("TxPowerEnd", DoubleValue(20.0));
    WifiMacHelper mac;
    mac.SetType("ns3::AdhocWifiMac");
    NetDeviceContainer devs = wifi.Install(phy, mac, nodes);

    AodvHelper aodv; // every attribute at its default
    InternetStackHelper inet;
    inet.SetRoutingHelper(aodv);
    inet.Install(nodes);
    Ipv4AddressHelper addr;
    addr.SetBase("10.1.0.0", "255.255.0.0");
    Ipv4InterfaceContainer ifs = addr.Assign(devs);
    for (uint32_t i = 0; i < n; i++)
        g_addr.push_back(ifs.GetAddress(i));
    if (arp == "static")
        FillArpCaches(nodes, devs, ifs);

    TypeId udpTid = TypeId::LookupByName("ns3::UdpSocketFactory");
    for (uint32_t i = 0; i < n; i++)
    {
        Ptr<Socket> s = Socket::CreateSocket(nodes.Get(i), udpTid);
        s->Bind(InetSocketAddress(Ipv4Address::GetAny(), DATA_PORT));
        s->SetRecvCallback(MakeCallback(&Sink));
    }

    Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
    if (grid)
    {
        g_flows.push_back({0, n - 1, Socket::CreateSocket(nodes.Get(0), udpTid)});
        Simulator::Schedule(Seconds(1.0), &SendData, 0u, Seconds(1.0), Seconds(10.5));
    }
    else
    {
        std::set<std::pair<uint32_t, uint32_t>> used;
        while (g_flows.size() < 10)
        {
            uint32_t a = u->GetInteger(0, n - 1), b = u->GetInteger(0, n - 1);
            if (a == b || used.count({a, b}))
                continue;
            used.insert({a, b});
            g_flows.push_back({a, b, Socket::CreateSocket(nodes.Get(a), udpTid)});
        }
        for (uint32_t f = 0; f < g_flows.size(); f++)
        {
            Time start = Seconds(10.0) + NanoSeconds((int64_t)u->GetValue(0, 250e6));
            Simulator::Schedule(start, &SendData, f, MilliSeconds(250), Seconds(dataStop));
        }
    }
    for (auto& fl : g_flows)
        fl.sock->Bind();

    Config::ConnectWithoutContext("/NodeList/*/$ns3::Ipv4L3Protocol/Tx", MakeCallback(&IpTx));
    Config::ConnectWithoutContext("/NodeList/*/$ns3::Ipv4L3Protocol/LocalDeliver", MakeCallback(&LocalDeliver));
    Config::ConnectWithoutContext("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Phy/PhyTxBegin",
                                  MakeCallback(&PhyTxBegin));

    if (g_trace)
    {
        Config::Connect("/NodeList/*/$ns3::Ipv4L3Protocol/Drop", MakeCallback(&IpDrop));
        Config::Connect("/NodeList/*/$ns3::ArpL3Protocol/Drop", MakeCallback(&ArpDrop));
        Config::Connect("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Mac/DroppedMpdu", MakeCallback(&MacDrop));
    }
    Simulator::Stop(Seconds(simEnd));
    Simulator::Run();

    // results
    uint64_t sent = 0, recv = 0, hopMismatch = 0, deferred = 0;
    double hopsSum = 0, hopsTxSum = 0;
    std::vector<double> later, all;
    std::vector<double> firsts;
    for (auto& kv : g_pkts)
    {
        const PktInfo& pi = kv.second;
        if (pi.sent < 0)
            continue;
        sent++;
        if (pi.deferred)
            deferred++;
        if (pi.recv < 0)
            continue;
        recv++;
        int hops = 65 - pi.ttl;
        hopsSum += hops;
        hopsTxSum += pi.ipTx;
        if ((uint32_t)hops != pi.ipTx)
            hopMismatch++;
        double lat = (pi.recv - pi.sent) / 1e6;
        all.push_back(lat);
        if (kv.first.second == 0)
            firsts.push_back(lat);
        else
            later.push_back(lat);
        if (verbose || (g_trace && (uint32_t)hops != pi.ipTx))
            printf("# pkt flow=%u seq=%u sent_s=%.3f lat_ms=%.3f ttl=%d deferred=%d ip_tx=%u phy_tx=%u\n",
                   kv.first.first, kv.first.second, pi.sent / 1e9, lat, pi.ttl, pi.deferred, pi.ipTx, pi.phyTx);
    }
    if (verbose)
        for (auto& s : g_rreqLog)
            printf("# rreq_orig %s\n", s.c_str());
    double firstMean = 0;
    for (double x : firsts)
        firstMean += x;
    if (!firsts.empty())
        firstMean /= firsts.size();
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();

    printf("case=%s\n", cas.c_str());
    printf("run=%u\n", run);
    printf("arp=%s\n", arp.c_str());
    printf("nodes=%u\n", n);
    printf("range_m=%g\n", range);
    printf("flows=%zu\n", g_flows.size());
    printf("data_sent=%lu\n", sent);
    printf("data_received=%lu\n", recv);
    printf("delivery_ratio=%.4f\n", sent ? (double)recv / sent : 0.0);
    printf("rreq_frames=%lu\n", g_rreq);
    printf("rreq_originated=%lu\n", g_rreqOrig);
    printf("rreq_retries=%lu\n", g_rreqRetry);
    printf("rrep_frames=%lu\n", g_rrep);
    printf("rerr_frames=%lu\n", g_rerr);
    printf("rrep_ack_frames=%lu\n", g_rrepAck);
    printf("hello_frames=%lu\n", g_hello);
    printf("ctrl_bytes=%lu\n", g_ctrlBytes);
    printf("hello_bytes=%lu\n", g_helloBytes);
    printf("ctrl_phy_frames=%lu\n", g_ctrlPhy);
    printf("rreq_phy_frames=%lu\n", g_rreqPhy);
    printf("rrep_phy_frames=%lu\n", g_rrepPhy);
    printf("rerr_phy_frames=%lu\n", g_rerrPhy);
    printf("hello_phy_frames=%lu\n", g_helloPhy);
    printf("arp_phy_frames=%lu\n", g_arpPhy);
    printf("avg_hops=%.3f\n", recv ? hopsSum / recv : -1.0);
    printf("avg_hops_ip_tx=%.3f\n", recv ? hopsTxSum / recv : -1.0);
    printf("hops_ttl_vs_tx_mismatch=%lu\n", hopMismatch);
    printf("ctrl_deferred_rrep=%lu\nctrl_deferred_rerr=%lu\nctrl_deferred_rrep_ack=%lu\n",
           (unsigned long)g_ctrlDeferred[aodv::AODVTYPE_RREP], (unsigned long)g_ctrlDeferred[aodv::AODVTYPE_RERR],
           (unsigned long)g_ctrlDeferred[aodv::AODVTYPE_RREP_ACK]);
    printf("data_deferred=%lu\n", deferred);
    printf("first_latency_ms=%.3f\n", firsts.empty() ? -1.0 : firstMean);
    printf("first_delivered=%zu\n", firsts.size());
    printf("later_latency_median_ms=%.3f\n", Median(later));
    double allMean = 0;
    for (double x : all)
        allMean += x / all.size();
    printf("latency_mean_ms=%.3f\n", all.empty() ? -1.0 : allMean);
    printf("latency_median_ms=%.3f\n", Median(all));
    printf("data_phy_frames=%lu\n", g_dataPhy);
    printf("data_frames_per_delivered=%.3f\n", recv ? (double)g_dataPhy / recv : -1.0);
    printf("wall_s=%.2f\n", wall);
    Simulator::Destroy();
    return 0;
}
