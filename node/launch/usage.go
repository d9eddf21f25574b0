package launch

import "time"

// Usage is the node processes' resource use over a run, summed or
// compared over the processes (restarts of a process summed), and the
// player's: what `run` prints at the end of its summary and writes to
// log/usage.json. CPU and RSS come from wait4's rusage of each process.
type Usage struct {
	// NodeProcesses is how many node processes ran (restarts not
	// counted); Elapsed is the run's time, as Result.Elapsed (the
	// model's); in dilated time Wall is its length on the host's clock,
	// which the CPU figures are spent over, and Dilation the dilation.
	NodeProcesses int           `json:"node_processes"`
	Elapsed       time.Duration `json:"elapsed_ns"`
	Wall          time.Duration `json:"wall_ns,omitempty"`
	Dilation      int           `json:"dilation,omitempty"`
	// CPU is User plus Sys over every node process.
	CPU  time.Duration `json:"cpu_ns"`
	User time.Duration `json:"user_ns"`
	Sys  time.Duration `json:"sys_ns"`
	// CPUMean and CPUMax are per node process.
	CPUMean time.Duration `json:"cpu_mean_ns"`
	CPUMax  time.Duration `json:"cpu_max_ns"`
	// RSSMean and RSSMax are the node processes' peak resident set
	// sizes, in bytes: their mean and the largest.
	RSSMean int64 `json:"rss_mean_bytes"`
	RSSMax  int64 `json:"rss_max_bytes"`
	// PlayerCPU and PlayerRSS are the mobility player's.
	PlayerCPU time.Duration `json:"player_cpu_ns"`
	PlayerRSS int64         `json:"player_rss_bytes"`
}

// Usage sums r.Procs: every process but the last, the player.
func (r *Result) Usage() Usage {
	u := Usage{Elapsed: r.Elapsed}
	if r.Dilation > 1 {
		u.Wall, u.Dilation = r.Wall, r.Dilation
	}
	if len(r.Procs) == 0 {
		return u
	}
	nodes, player := r.Procs[:len(r.Procs)-1], r.Procs[len(r.Procs)-1]
	u.PlayerCPU, u.PlayerRSS = player.CPU, player.MaxRSS
	u.NodeProcesses = len(nodes)
	if len(nodes) == 0 {
		return u
	}
	var rss int64
	for _, p := range nodes {
		u.CPU += p.CPU
		u.User += p.User
		u.Sys += p.Sys
		u.CPUMax = max(u.CPUMax, p.CPU)
		u.RSSMax = max(u.RSSMax, p.MaxRSS)
		rss += p.MaxRSS
	}
	u.CPUMean = u.CPU / time.Duration(len(nodes))
	u.RSSMean = rss / int64(len(nodes))
	return u
}
