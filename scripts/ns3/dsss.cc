// dsss: the SINR (dB) at which ns-3's (3.37) DsssErrorRateModel gives a bit
// error rate of 1e-5 at each 802.11b rate (bisection on the success rate of
// one bit), and the chunk success rate of a 100-byte frame at that SINR.
// manetlab's radio.SINRThreshold is these figures (docs/radio.md).
#include "ns3/core-module.h"
#include "ns3/wifi-module.h"
#include <cmath>
#include <cstdio>
using namespace ns3;

typedef double (*Rate)(double sinr, uint64_t nbits);

static double Solve(Rate f)
{
  double lo = 1e-4, hi = 1e4; // linear SINR
  for (int i = 0; i < 200; i++) {
    double m = std::sqrt(lo * hi);
    double ber = 1 - f(m, 1);
    if (ber > 1e-5) lo = m; else hi = m;
  }
  return hi;
}

int main()
{
  struct { const char *name; double mbps; Rate f; } rates[] = {
    {"DBPSK", 1, DsssErrorRateModel::GetDsssDbpskSuccessRate},
    {"DQPSK", 2, DsssErrorRateModel::GetDsssDqpskSuccessRate},
    {"CCK5.5", 5.5, DsssErrorRateModel::GetDsssDqpskCck5_5SuccessRate},
    {"CCK11", 11, DsssErrorRateModel::GetDsssDqpskCck11SuccessRate},
  };
  for (auto &r : rates) {
    double s = Solve(r.f);
    printf("rate=%g modulation=%s sinr_db=%.2f success_100B=%.4f\n", r.mbps, r.name, 10 * std::log10(s), r.f(s, 800));
  }
  return 0;
}
