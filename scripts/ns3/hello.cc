// hello.cc: the hello-only workload of issue 37 in ns-3 (3.37): N static
// nodes on a grid 100 m apart (ceil(sqrt(N)) columns, like manetlab's
// placement: grid), every node broadcasting a 60-byte hello every second
// from a random phase U[0, 1 s), for --time seconds (default 60).
//
//   --channel=range  the cheap channel: SimpleNetDevice on a SimpleChannel
//                    that delivers a frame, after a fixed delay, to the
//                    devices within --range metres only (neighbour lists
//                    computed once: the nodes do not move), no MAC, no
//                    collisions: what manetlab's ideal medium models.
//   --channel=wifi   802.11b ad hoc (AdhocWifiMac), YansWifi, DSSS 1 Mbps,
//                    RangePropagationLossModel (MaxRange --range), 20 dBm:
//                    every frame handled at every radio in range.
//
// Prints one key=value line: nodes, mean neighbours, hellos sent and
// received. scripts/ns3/hello.sh times it against manetlab.
#include "ns3/core-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include "ns3/propagation-module.h"
#include "ns3/wifi-module.h"

#include <cmath>
#include <cstdio>
#include <vector>

using namespace ns3;

static uint64_t g_sent, g_rx;
static uint32_t g_payload = 60;

// RangeChannel delivers to the devices within range of the sender.
class RangeChannel : public SimpleChannel
{
  public:
    std::vector<Ptr<SimpleNetDevice>> devs;
    std::vector<std::vector<uint32_t>> nbrs; // by device index
    Time delay = MicroSeconds(1);

    void Send(Ptr<Packet> p, uint16_t protocol, Mac48Address to, Mac48Address from,
              Ptr<SimpleNetDevice> sender) override
    {
        uint32_t i = sender->GetNode()->GetId();
        for (uint32_t j : nbrs[i])
        {
            Simulator::ScheduleWithContext(devs[j]->GetNode()->GetId(), delay, &SimpleNetDevice::Receive,
                                           devs[j], p->Copy(), protocol, to, from);
        }
    }
};

static bool
Rx(Ptr<NetDevice>, Ptr<const Packet>, uint16_t, const Address&)
{
    g_rx++;
    return true;
}

static void
SendHello(Ptr<NetDevice> d)
{
    g_sent++;
    d->Send(Create<Packet>(g_payload), d->GetBroadcast(), 0x88B5);
}

int
main(int argc, char* argv[])
{
    uint32_t n = 1000;
    uint32_t run = 1;
    double range = 150;
    double simTime = 60;
    std::string channel = "range";
    CommandLine cmd;
    cmd.AddValue("n", "nodes", n);
    cmd.AddValue("channel", "range|wifi", channel);
    cmd.AddValue("range", "radio range in m", range);
    cmd.AddValue("time", "seconds of hellos", simTime);
    cmd.AddValue("payload", "hello payload bytes", g_payload);
    cmd.AddValue("run", "RngRun", run);
    cmd.Parse(argc, argv);
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(run);

    uint32_t cols = std::ceil(std::sqrt(double(n)));
    std::vector<Vector> pos(n);
    for (uint32_t i = 0; i < n; i++)
    {
        pos[i] = Vector(100.0 * (i % cols), 100.0 * (i / cols), 1.5);
    }
    NodeContainer nodes;
    nodes.Create(n);
    MobilityHelper mob;
    Ptr<ListPositionAllocator> alloc = CreateObject<ListPositionAllocator>();
    for (auto& p : pos)
    {
        alloc->Add(p);
    }
    mob.SetPositionAllocator(alloc);
    mob.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    mob.Install(nodes);

    // Neighbours by grid cell: the nodes within range, for the mean
    // degree (both channels) and the range channel's deliveries.
    std::vector<std::vector<uint32_t>> nbrs(n);
    int reach = int(std::ceil(range / 100.0));
    uint64_t links = 0;
    for (uint32_t i = 0; i < n; i++)
    {
        int cx = i % cols, cy = i / cols;
        for (int dy = -reach; dy <= reach; dy++)
        {
            for (int dx = -reach; dx <= reach; dx++)
            {
                int x = cx + dx, y = cy + dy;
                if ((dx == 0 && dy == 0) || x < 0 || y < 0 || x >= int(cols))
                {
                    continue;
                }
                uint32_t j = uint32_t(y) * cols + uint32_t(x);
                if (j >= n || CalculateDistance(pos[i], pos[j]) > range)
                {
                    continue;
                }
                nbrs[i].push_back(j);
                links++;
            }
        }
    }

    std::vector<Ptr<NetDevice>> devs;
    if (channel == "range")
    {
        Ptr<RangeChannel> ch = CreateObject<RangeChannel>();
        for (uint32_t i = 0; i < n; i++)
        {
            Ptr<SimpleNetDevice> d = CreateObject<SimpleNetDevice>();
            d->SetAddress(Mac48Address::Allocate());
            d->SetChannel(ch);
            nodes.Get(i)->AddDevice(d);
            ch->devs.push_back(d);
            devs.push_back(d);
        }
        ch->nbrs = nbrs;
    }
    else if (channel == "wifi")
    {
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
        NetDeviceContainer c = wifi.Install(phy, mac, nodes);
        for (uint32_t i = 0; i < n; i++)
        {
            devs.push_back(c.Get(i));
        }
    }
    else
    {
        fprintf(stderr, "hello: --channel=%s: want range or wifi\n", channel.c_str());
        return 2;
    }
    for (auto& d : devs)
    {
        d->SetReceiveCallback(MakeCallback(&Rx));
    }

    Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
    for (uint32_t i = 0; i < n; i++)
    {
        double phase = u->GetValue(0, 1);
        for (int k = 0; phase + k < simTime; k++)
        {
            Simulator::Schedule(Seconds(phase + k), &SendHello, devs[i]);
        }
    }
    Simulator::Stop(Seconds(simTime + 1));
    Simulator::Run();
    Simulator::Destroy();
    printf("ns3 hello channel=%s n=%u mean_neighbours=%.2f time_s=%g sent=%lu received=%lu received_per_sent=%.3f\n",
           channel.c_str(), n, double(links) / n, simTime, (unsigned long)g_sent, (unsigned long)g_rx,
           g_sent ? double(g_rx) / g_sent : 0.0);
    return 0;
}
