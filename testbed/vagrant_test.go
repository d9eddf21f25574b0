package testbed

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestVagrantRunScript runs scripts/vagrant/run.sh (a copy, in a
// directory of its own) with vagrant, ssh and go stubbed: it builds this
// machine's manetlab and the VMs' (build.sh), reads each VM's interface,
// and runs this machine's manetlab with the VMs' binary as --host-bin and
// an iface= per VM, with no flags after -- as with some (the empty
// array that bash 3.2 refuses under set -u unless guarded).
func TestVagrantRunScript(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("needs bash")
	}
	t.Run("bash", func(t *testing.T) { vagrantRunScript(t, bash) })
	// macOS's own bash is 3.2 (GNU bash 3.2.57): where one is at hand
	// (scripts/bash32.sh builds it from Apple's sources), the scripts a
	// home machine runs are run under it too.
	t.Run("bash-3.2", func(t *testing.T) {
		b32 := os.Getenv("MANETLAB_BASH32")
		if b32 == "" {
			t.Skip("set MANETLAB_BASH32 to a bash 3.2 binary (scripts/bash32.sh builds one) to run the scripts under macOS's bash")
		}
		out, err := exec.Command(b32, "--version").Output()
		if err != nil || !strings.Contains(string(out), "version 3.2") {
			t.Fatalf("MANETLAB_BASH32=%s is not bash 3.2: %v %s", b32, err, out)
		}
		vagrantRunScript(t, b32)
	})
}

func vagrantRunScript(t *testing.T, bash string) {
	root := t.TempDir()
	for _, f := range []string{"run.sh", "build.sh"} {
		b, err := os.ReadFile(filepath.Join("../scripts/vagrant", f))
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(root, "scripts/vagrant"), 0o755)
		if err := os.WriteFile(filepath.Join(root, "scripts/vagrant", f), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(root, "s.yaml"), []byte("name: s\n"), 0o644)
	stubs := filepath.Join(root, "stubs")
	os.MkdirAll(stubs, 0o755)
	log := filepath.Join(root, "ran")
	for name, body := range map[string]string{
		// go build -o OUT ...: OUT, when run, logs its arguments.
		"go":      `while [ "$1" != -o ]; do shift; done; printf '#!/bin/sh\necho "$(basename "$0") $*" >> ` + log + `\n' > "$2"; chmod +x "$2"`,
		"vagrant": `echo "Host n1"`,
		"ssh":     `echo eth1`,
	} {
		os.WriteFile(filepath.Join(stubs, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755)
	}
	// The scripts' own "#!/usr/bin/env bash" finds this bash too.
	if err := os.Symlink(bash, filepath.Join(stubs, "bash")); err != nil {
		t.Fatal(err)
	}
	for _, extra := range [][]string{nil, {"--", "--set", "duration=5s"}} {
		os.Remove(log)
		cmd := exec.Command(bash, append([]string{filepath.Join(root, "scripts/vagrant/run.sh"), filepath.Join(root, "s.yaml")}, extra...)...)
		cmd.Env = append(os.Environ(), "PATH="+stubs+":/usr/bin:/bin")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("run.sh %q: %v\n%s", extra, err, out)
		}
		b, _ := os.ReadFile(log)
		got := strings.TrimSpace(string(b))
		want := "manetlab-home run " + filepath.Join(root, "s.yaml") + " --hosts n1 iface=eth1,n2 iface=eth1,n3 iface=eth1 --ssh-config "
		if !strings.HasPrefix(got, want) || !strings.Contains(got, " --ttl 1 --host-bin "+filepath.Join(root, "bin/manetlab-linux-amd64")) ||
			!strings.HasSuffix(got, strings.Join(append([]string{""}, extra[min(1, len(extra)):]...), " ")) {
			t.Errorf("run.sh %q ran %q, want this machine's manetlab with the VMs' as --host-bin", extra, got)
		}
	}
}
