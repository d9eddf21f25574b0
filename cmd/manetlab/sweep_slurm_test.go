package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// freePort returns a TCP port nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// daemon starts a foreground daemon and stops it (by its PID) when the
// test ends, pass or fail.
func daemon(t *testing.T, log string, name string, args ...string) {
	t.Helper()
	f, err := os.Create(log)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	t.Cleanup(func() {
		// SIGTERM lets slurmctld reap its helpers; SIGKILL if it hangs.
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		f.Close()
	})
}

// waitFor polls cond every 100 ms until it holds, failing the test with
// what it waited for after limit (a stuck daemon, not a timing guess:
// the conditions are the daemons' own states).
func waitFor(t *testing.T, what string, limit time.Duration, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(limit); !cond(); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("gave up waiting for %s after %s", what, limit)
		}
	}
}

// slurm is a single-node Slurm cluster the test started.
type slurm struct {
	dir string
	env []string
}

// startSlurm starts munged, slurmctld and slurmd (Debian's) as root in a
// temporary directory, with their own ports and socket, and stops them
// when the test ends; it skips the test where that cannot be done.
func startSlurm(t *testing.T) *slurm {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a local Slurm needs root (its daemons run as root here): run as root, as CI does")
	}
	for _, bin := range []string{"munged", "slurmctld", "slurmd", "sbatch", "squeue", "scancel", "scontrol", "sinfo"} {
		if _, err := exec.LookPath(bin); err != nil {
			if _, err := os.Stat("/usr/sbin/" + bin); err != nil {
				t.Skipf("%s is not installed (scripts/deps.sh installs munge, slurmctld, slurmd and slurm-client)", bin)
			}
		}
	}
	dir, err := os.MkdirTemp("", "manetlab-slurm-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755) // munged wants its socket's directory searchable
	key := make([]byte, 1024)
	if f, err := os.Open("/dev/urandom"); err == nil {
		f.Read(key)
		f.Close()
	}
	os.WriteFile(filepath.Join(dir, "munge.key"), key, 0o400)
	sock := filepath.Join(dir, "munge.sock")
	daemon(t, filepath.Join(dir, "munged.out"), sbin("munged"), "--foreground", "--force", "--socket", sock,
		"--key-file", filepath.Join(dir, "munge.key"), "--log-file", filepath.Join(dir, "munged.log"),
		"--pid-file", filepath.Join(dir, "munged.pid"), "--seed-file", filepath.Join(dir, "munged.seed"))
	waitFor(t, "munged's socket", 20*time.Second, func() bool { _, err := os.Stat(sock); return err == nil })
	host, _ := os.Hostname()
	for _, d := range []string{"state", "spool"} {
		os.Mkdir(filepath.Join(dir, d), 0o755)
	}
	conf := fmt.Sprintf(`ClusterName=manetlabtest
SlurmctldHost=%[1]s(127.0.0.1)
SlurmctldPort=%[3]d
SlurmdPort=%[4]d
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=%[2]s/munge.sock
CredType=cred/munge
StateSaveLocation=%[2]s/state
SlurmdSpoolDir=%[2]s/spool
SlurmctldPidFile=%[2]s/slurmctld.pid
SlurmdPidFile=%[2]s/slurmd.pid
SlurmctldLogFile=%[2]s/slurmctld.log
SlurmdLogFile=%[2]s/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
MpiDefault=none
ReturnToService=2
SlurmdParameters=config_overrides
MailProg=/bin/true
NodeName=mlnode NodeHostname=%[1]s NodeAddr=127.0.0.1 CPUs=2 RealMemory=4000 State=UNKNOWN
PartitionName=mltest Nodes=ALL Default=YES MaxTime=INFINITE State=UP
`, host, dir, freePort(t), freePort(t))
	confPath := filepath.Join(dir, "slurm.conf")
	os.WriteFile(confPath, []byte(conf), 0o644)
	s := &slurm{dir: dir, env: append(os.Environ(), "SLURM_CONF="+confPath)}
	daemon(t, filepath.Join(dir, "slurmctld.out"), sbin("slurmctld"), "-D", "-i", "-f", confPath)
	daemon(t, filepath.Join(dir, "slurmd.out"), sbin("slurmd"), "-D", "-N", "mlnode", "-f", confPath)
	t.Cleanup(func() {
		if t.Failed() {
			for _, log := range []string{"slurmctld.log", "slurmd.log", "slurmctld.out", "slurmd.out"} {
				b, _ := os.ReadFile(filepath.Join(dir, log))
				t.Logf("%s:\n%s", log, b)
			}
		}
	})
	waitFor(t, "the Slurm node to be idle", 60*time.Second, func() bool {
		out, _ := s.run("sinfo", "-h", "-o", "%T")
		return strings.TrimSpace(out) == "idle"
	})
	return s
}

func sbin(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	return "/usr/sbin/" + name
}

// run runs a Slurm client command against this cluster.
func (s *slurm) run(name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Env = s.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// waitJob waits until the job has left the queue.
func (s *slurm) waitJob(t *testing.T, job string) {
	t.Helper()
	waitFor(t, "job "+job+" to end", 5*time.Minute, func() bool {
		out, err := s.run("squeue", "-h", "-j", job)
		return err == nil && strings.TrimSpace(out) == "" || err != nil && strings.Contains(out, "Invalid job id")
	})
}

// TestSweepAsASlurmJobArray runs the sweep as a 4-task job array of
// scripts/slurm/sweep.sbatch on a real single-node Slurm, with task 2
// cancelled before it starts and resubmitted alone, and compares the
// collected table with the one-machine sweep's.
func TestSweepAsASlurmJobArray(t *testing.T) {
	s := startSlurm(t)
	bin := buildBinary(t)
	work := t.TempDir()
	one, err := runCLI(t, sweepArgs("--out", filepath.Join(work, "one"))...)
	if err != nil {
		t.Fatal(err)
	}
	script, _ := filepath.Abs("../../scripts/slurm/sweep.sbatch")
	scenario, _ := filepath.Abs(sweepGrid[1])
	res := filepath.Join(work, "results")
	args := append([]string{"4", res, scenario}, sweepGrid[2:len(sweepGrid)-1]...) // without --quiet: the tasks' logs say what they did
	s.env = append(s.env, "MANETLAB="+bin)
	submit := func(array string, hold bool) string {
		opts := []string{"--parsable", "--array=" + array, "--mem-per-cpu=300M", "--output=" + filepath.Join(work, "task-%A_%a.out")}
		if hold {
			opts = append(opts, "--hold")
		}
		out, err := s.run("sbatch", append(append(opts, script), args...)...)
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(out)
	}
	job := submit("0-3", true)
	if _, err := s.run("scancel", job+"_2"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.run("scontrol", "release", job); err != nil {
		t.Fatal(err)
	}
	s.waitJob(t, job)
	_, err = runCLI(t, "sweep", "collect", res, "--quiet")
	if err == nil || !strings.Contains(err.Error(), "2 of 8 runs missing") {
		logs, _ := filepath.Glob(filepath.Join(work, "task-*"))
		for _, l := range logs {
			b, _ := os.ReadFile(l)
			t.Logf("%s:\n%s", l, b)
		}
		t.Fatalf("after tasks 0, 1 and 3 of 4: %v", err)
	}
	again := submit("2", false)
	s.waitJob(t, again)
	got, err := runCLI(t, "sweep", "collect", res, "--quiet")
	if err != nil {
		t.Fatal(err)
	}
	if got != one {
		t.Fatalf("the job array's table\n%s\nthe one-machine sweep's\n%s", got, one)
	}
	log, _ := os.ReadFile(filepath.Join(work, fmt.Sprintf("task-%s_2.out", again)))
	if !strings.Contains(string(log), "slice 2/4: 2 runs, 0 already in") {
		t.Errorf("the resubmitted task's log:\n%s", log)
	}
}
