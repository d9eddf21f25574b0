// unicast in ns-3 (3.37) 802.11b ad-hoc, YansWifi, constant rate 1 Mbps:
// acknowledged unicast frames contending for one receiver, the case the
// contention and flood programs (broadcasts) leave out: ACK after SIFS,
// retransmission with a doubled contention window, the retry limit.
//   --mode=sink    N nodes uniformly in a SIDE x SIDE square (all in range
//                  of each other; log-distance, exponent 3, as contention.cc);
//                  nodes 1..N-1 each send COUNT 100-byte unicasts to node 0,
//                  the k-th at 1 s + phase + k PERIOD, phase U[0, spread)
//   --mode=hidden  three nodes on a line 100 m apart, 150 m unit disk
//                  (RangePropagationLossModel): nodes 0 and 2, hidden from
//                  each other, each send COUNT unicasts to node 1, as above
//   --mode=far     the same line; node 0 alone sends COUNT unicasts to node
//                  2, out of its range: every one is given up after the
//                  retry limit
// Payload handed to WifiNetDevice::Send: 100 bytes (+ 8 LLC/SNAP + 24 MAC
// header + 4 FCS on the air). Prints the fraction of frames received
// (each counted once), data transmissions per frame sent (retransmissions
// included), frames given up after the retry limit, the latency from the
// send call to the receiver's MAC delivery, and when the last arrived.
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/mobility-module.h"
#include "ns3/wifi-module.h"
#include "ns3/propagation-module.h"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>
#include <vector>
using namespace ns3;

static std::vector<Ptr<NetDevice>> g_devs;
static std::vector<int64_t> g_lat;
static std::set<std::pair<uint32_t, uint32_t>> g_got;
static uint64_t g_sent = 0, g_dataTx = 0, g_ackTx = 0, g_finalFailed = 0, g_dup = 0;
static int64_t g_firstTx = -1, g_lastRx = -1, g_lastFail = -1;
static uint32_t g_payload = 100;

static bool Rx(Ptr<NetDevice>, Ptr<const Packet> p, uint16_t, const Address &)
{
  uint8_t buf[16];
  p->CopyData(buf, 16);
  uint32_t src, k;
  int64_t t;
  memcpy(&src, buf, 4);
  memcpy(&k, buf + 4, 4);
  memcpy(&t, buf + 8, 8);
  if (!g_got.insert({src, k}).second) {
    g_dup++;
    return true;
  }
  int64_t now = Simulator::Now().GetNanoSeconds();
  g_lat.push_back(now - t);
  g_lastRx = std::max(g_lastRx, now);
  return true;
}

static void Tx(uint32_t i, uint32_t to, uint32_t k)
{
  std::vector<uint8_t> buf(g_payload, 0);
  int64_t t = Simulator::Now().GetNanoSeconds();
  memcpy(buf.data(), &i, 4);
  memcpy(buf.data() + 4, &k, 4);
  memcpy(buf.data() + 8, &t, 8);
  if (g_firstTx < 0) g_firstTx = t;
  Ptr<Packet> p = Create<Packet>(buf.data(), g_payload);
  g_devs[i]->Send(p, g_devs[to]->GetAddress(), 0x88B5);
  g_sent++;
}

static void PhyTxBegin(Ptr<const Packet> p, double)
{
  if (p->GetSize() >= g_payload) g_dataTx++;
  else g_ackTx++;
}
static void FinalFailed(Mac48Address)
{
  g_finalFailed++;
  g_lastFail = Simulator::Now().GetNanoSeconds();
}

static int64_t pct(const std::vector<int64_t> &v, double q)
{
  if (v.empty()) return -1;
  size_t i = (size_t)std::ceil(q * v.size());
  if (i > 0) i--;
  return v[std::min(i, v.size() - 1)];
}

int main(int argc, char **argv)
{
  uint32_t n = 10, run = 1, count = 10;
  double side = 50, spreadUs = 10000, periodUs = 0;
  std::string mode = "sink", arrivals = "periodic";
  uint32_t rts = 65535;
  CommandLine cmd;
  cmd.AddValue("n", "nodes (sink mode)", n);
  cmd.AddValue("mode", "sink|hidden|far|random (sink's square, every node sends each frame to a random other node)", mode);
  cmd.AddValue("run", "RngRun", run);
  cmd.AddValue("side", "square side in m (sink mode)", side);
  cmd.AddValue("count", "unicasts per sender", count);
  cmd.AddValue("spread_us", "each sender's phase is U[0, spread_us)", spreadUs);
  cmd.AddValue("period_us", "between a sender's unicasts (the mean gap with --arrivals=poisson)", periodUs);
  cmd.AddValue("arrivals", "periodic (period_us apart) | poisson (exponential gaps of mean period_us)", arrivals);
  cmd.AddValue("payload", "payload bytes", g_payload);
  cmd.AddValue("rts", "RtsCtsThreshold in bytes (65535, the default: no RTS/CTS; 0: every unicast after RTS/CTS)", rts);
  cmd.Parse(argc, argv);
  RngSeedManager::SetSeed(1);
  RngSeedManager::SetRun(run);
  if (mode == "hidden" || mode == "far") n = 3;

  Config::SetDefault("ns3::WifiRemoteStationManager::RtsCtsThreshold", UintegerValue(rts));
  NodeContainer nodes;
  nodes.Create(n);
  MobilityHelper mob;
  Ptr<ListPositionAllocator> pos = CreateObject<ListPositionAllocator>();
  if (n == 3 && mode != "sink") {
    for (uint32_t i = 0; i < n; i++) pos->Add(Vector(100.0 * i, 0, 1.5));
  } else {
    Ptr<UniformRandomVariable> ux = CreateObject<UniformRandomVariable>();
    ux->SetAttribute("Min", DoubleValue(0));
    ux->SetAttribute("Max", DoubleValue(side));
    for (uint32_t i = 0; i < n; i++) pos->Add(Vector(ux->GetValue(), ux->GetValue(), 1.5));
  }
  mob.SetPositionAllocator(pos);
  mob.SetMobilityModel("ns3::ConstantPositionMobilityModel");
  mob.Install(nodes);

  WifiHelper wifi;
  wifi.SetStandard(WIFI_STANDARD_80211b);
  wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager", "DataMode", StringValue("DsssRate1Mbps"),
                               "ControlMode", StringValue("DsssRate1Mbps"),
                               "NonUnicastMode", StringValue("DsssRate1Mbps"));
  YansWifiChannelHelper ch;
  ch.SetPropagationDelay("ns3::ConstantSpeedPropagationDelayModel");
  if (mode != "sink") {
    ch.AddPropagationLoss("ns3::RangePropagationLossModel", "MaxRange", DoubleValue(150));
  } else {
    ch.AddPropagationLoss("ns3::LogDistancePropagationLossModel", "Exponent", DoubleValue(3.0),
                          "ReferenceDistance", DoubleValue(1.0), "ReferenceLoss", DoubleValue(40.052008));
  }
  YansWifiPhyHelper phy;
  phy.SetChannel(ch.Create());
  phy.Set("TxPowerStart", DoubleValue(20.0));
  phy.Set("TxPowerEnd", DoubleValue(20.0));
  WifiMacHelper mac;
  mac.SetType("ns3::AdhocWifiMac");
  NetDeviceContainer devs = wifi.Install(phy, mac, nodes);
  for (uint32_t i = 0; i < n; i++) {
    g_devs.push_back(devs.Get(i));
    devs.Get(i)->SetReceiveCallback(MakeCallback(&Rx));
  }
  Config::ConnectWithoutContext("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Phy/PhyTxBegin", MakeCallback(&PhyTxBegin));
  if (!Config::ConnectWithoutContextFailSafe("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/RemoteStationManager/MacTxFinalDataFailed",
                                             MakeCallback(&FinalFailed))) {
    fprintf(stderr, "no MacTxFinalDataFailed trace source\n");
    return 1;
  }

  Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
  Ptr<ExponentialRandomVariable> e = CreateObject<ExponentialRandomVariable>();
  e->SetAttribute("Mean", DoubleValue(periodUs * 1e3));
  e->SetAttribute("Bound", DoubleValue(0));
  double lastAt = 0;
  uint32_t senders = 0;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t to = mode == "hidden" ? 1 : mode == "far" ? 2 : 0;
    if (mode != "random" && (i == to || (mode == "far" && i != 0))) continue;
    senders++;
    int64_t phase = (int64_t)u->GetValue(0, spreadUs * 1e3);
    double at = 0;
    for (uint32_t k = 0; k < count; k++) {
      if (arrivals == "poisson" && k > 0) at += e->GetValue();
      else if (k > 0) at += periodUs * 1e3;
      if (mode == "random") {
        to = u->GetInteger(0, n - 2);
        if (to >= i) to++;
      }
      Simulator::Schedule(Seconds(1.0) + NanoSeconds(phase + (int64_t)at), &Tx, i, to, k);
      lastAt = std::max(lastAt, phase + at);
    }
  }
  Simulator::Stop(Seconds(1.0) + NanoSeconds((int64_t)lastAt) + Seconds(3.0));
  Simulator::Run();

  std::sort(g_lat.begin(), g_lat.end());
  printf("ns3 mode=%s n=%u senders=%u count=%u run=%u spread_us=%g period_us=%g sent=%lu rx=%lu frac=%.4f "
         "data_tx=%lu tx_per_frame=%.4f ack_tx=%lu final_failed=%lu dup=%lu lat_us p50=%.1f p90=%.1f max=%.1f "
         "last_rx_after_first_tx_us=%.1f last_fail_after_first_tx_us=%.1f\n",
         mode.c_str(), n, senders, count, run, spreadUs, periodUs, g_sent, (unsigned long)g_got.size(),
         g_sent ? (double)g_got.size() / g_sent : 0.0, g_dataTx, g_sent ? (double)g_dataTx / g_sent : 0.0, g_ackTx,
         g_finalFailed, g_dup, pct(g_lat, .5) / 1e3, pct(g_lat, .9) / 1e3, g_lat.empty() ? -1 : g_lat.back() / 1e3,
         g_lastRx >= 0 ? (g_lastRx - g_firstTx) / 1e3 : -1.0, g_lastFail >= 0 ? (g_lastFail - g_firstTx) / 1e3 : -1.0);
  Simulator::Destroy();
  return 0;
}
