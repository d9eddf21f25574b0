// rwp in ns-3 (3.37): the random waypoint's steady-state start, the
// reference for manetlab's mobility.start: steady-state (Navidi and Camp's
// stationary distribution, ns-3's SteadyStateRandomWaypointMobilityModel).
// N nodes in a SIDE x SIDE square, speed U[MIN, MAX] m/s, a pause of PAUSE s.
// Prints the mean speed of the nodes at 1 ms and at --later s, their mean
// distance from the square's centre at both times, and the share of nodes
// paused at 1 ms.
//   rwp --n=4000 --side=1000 --min=1 --max=10 --pause=0 --later=1000 --run=1
#include "ns3/core-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include <cmath>
#include <cstdio>
using namespace ns3;

static NodeContainer g_nodes;
static double g_side = 1000;

// Sample prints the mean speed, the mean distance from the centre and the
// share of nodes standing still, as KEY_SPEED=..., with the given suffix.
static void Sample(const char* suffix)
{
    double speed = 0, centre = 0, still = 0;
    uint32_t n = g_nodes.GetN();
    for (uint32_t i = 0; i < n; i++)
    {
        Ptr<MobilityModel> m = g_nodes.Get(i)->GetObject<MobilityModel>();
        Vector v = m->GetVelocity(), p = m->GetPosition();
        double s = std::sqrt(v.x * v.x + v.y * v.y);
        speed += s / n;
        centre += std::hypot(p.x - g_side / 2, p.y - g_side / 2) / n;
        if (s == 0)
            still += 1.0 / n;
    }
    printf("speed_%s=%.4f\ncentre_%s=%.2f\nstill_%s=%.4f\n", suffix, speed, suffix, centre, suffix, still);
}

int main(int argc, char** argv)
{
    uint32_t n = 4000, run = 1;
    double minSpeed = 1, maxSpeed = 10, pause = 0, later = 1000;
    CommandLine cmd;
    cmd.AddValue("n", "nodes", n);
    cmd.AddValue("side", "square side in m", g_side);
    cmd.AddValue("min", "MinSpeed, m/s", minSpeed);
    cmd.AddValue("max", "MaxSpeed, m/s", maxSpeed);
    cmd.AddValue("pause", "MinPause and MaxPause, s (a fixed pause, as manetlab's)", pause);
    cmd.AddValue("later", "second sample time, s", later);
    cmd.AddValue("run", "RngRun (seed 1)", run);
    cmd.Parse(argc, argv);
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(run);
    g_nodes.Create(n);
    MobilityHelper mob;
    mob.SetMobilityModel("ns3::SteadyStateRandomWaypointMobilityModel",
                         "MinSpeed", DoubleValue(minSpeed), "MaxSpeed", DoubleValue(maxSpeed),
                         "MinPause", DoubleValue(pause), "MaxPause", DoubleValue(pause),
                         "MinX", DoubleValue(0), "MaxX", DoubleValue(g_side),
                         "MinY", DoubleValue(0), "MaxY", DoubleValue(g_side));
    mob.Install(g_nodes);
    // At 1 ms: the models draw their first leg when the simulation starts.
    Simulator::Schedule(MilliSeconds(1), &Sample, "0");
    Simulator::Schedule(Seconds(later), &Sample, "later");
    Simulator::Stop(Seconds(later + 1));
    Simulator::Run();
    Simulator::Destroy();
    return 0;
}
