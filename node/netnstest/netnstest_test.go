package netnstest

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestRunInNamespace(t *testing.T) {
	if !Run(t, LoopbackMulticast) {
		return
	}
	if Namespace() == "" {
		t.Fatal("child does not know its namespace")
	}
	ifs, err := net.Interfaces()
	if err != nil {
		t.Fatal(err)
	}
	if len(ifs) != 1 || ifs[0].Name != "lo" {
		t.Fatalf("a fresh namespace has only lo; this one has %v", ifs)
	}
	if want := net.FlagUp | net.FlagMulticast; ifs[0].Flags&want != want {
		t.Errorf("setup did not run: lo flags %v", ifs[0].Flags)
	}
}

// recorder catches the parent's failure report instead of failing the
// test, so that a child failure can be checked.
type recorder struct {
	*testing.T
	fatal string
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func TestRunReportsChildFailureAndCleansUp(t *testing.T) {
	for _, mode := range []string{"fail", "panic"} {
		t.Run(mode, func(t *testing.T) {
			if os.Getenv(envTest) == t.Name() {
				Run(t, nil)
				if mode == "panic" {
					panic("deliberate panic in the child")
				}
				t.Fatal("deliberate failure in the child")
			}
			if os.Geteuid() != 0 {
				t.Skip(SkipMessage)
			}
			// Registered first, so it runs after Run's deletion.
			t.Cleanup(func() {
				left, _ := filepath.Glob(filepath.Join("/run/netns", fmt.Sprintf("%s%d-*", prefix(), os.Getpid())))
				if len(left) != 0 {
					t.Errorf("namespaces left behind: %v", left)
				}
			})
			r := &recorder{T: t}
			done := make(chan struct{})
			go func() {
				defer close(done)
				if Run(r, nil) {
					t.Error("Run returned true in the parent")
				}
			}()
			<-done
			if !strings.Contains(r.fatal, "exit status") {
				t.Errorf("child failure not reported: %q", r.fatal)
			}
		})
	}
}

func TestPrefix(t *testing.T) {
	if p := prefix(); !strings.HasPrefix(p, "manetlab-netnstest") || !staleName.MatchString(p+"12-3") {
		t.Errorf("prefix %q does not match the stale-namespace pattern", p)
	}
}
