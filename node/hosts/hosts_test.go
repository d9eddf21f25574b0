package hosts

import (
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
)

func TestParseListAndLines(t *testing.T) {
	hs, err := Parse("h1,alice@h2 iface=eth1 share=2, h3 dir=/tmp/x")
	if err != nil {
		t.Fatal(err)
	}
	want := []Host{{Target: "h1", Share: 1}, {Target: "alice@h2", Iface: "eth1", Share: 2}, {Target: "h3", Share: 1, Dir: "/tmp/x"}}
	if !reflect.DeepEqual(hs, want) {
		t.Fatalf("got %+v, want %+v", hs, want)
	}
	p := filepath.Join(t.TempDir(), "hosts")
	os.WriteFile(p, []byte("# lab\nh1   # first\n\nalice@h2 iface=eth1 share=2\nh3 dir=/tmp/x\n"), 0o644)
	if hs, err = Parse(p); err != nil || !reflect.DeepEqual(hs, want) {
		t.Fatalf("file: got %+v, %v", hs, err)
	}
	y := filepath.Join(t.TempDir(), "hosts.yaml")
	os.WriteFile(y, []byte("hosts:\n  - h1\n  - {host: alice@h2, iface: eth1, share: 2}\n  - host: h3\n    dir: /tmp/x\n"), 0o644)
	if hs, err = Parse(y); err != nil || !reflect.DeepEqual(hs, want) {
		t.Fatalf("yaml: got %+v, %v", hs, err)
	}
}

func TestParseErrorsNameWhere(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(s), 0o644)
		return p
	}
	for _, c := range []struct{ arg, want string }{
		{"h1,h2 share=0", `entry 2 "h2 share=0": share 0: want 1 or more`},
		{"h1,h2 shares=2", `unknown field "shares"`},
		{"h1,h1", "host h1 listed twice"},
		{"h1,h2 iface", `"iface": want key=value`},
		{"h1,-oProxyCommand=x", "not a host name"},
		{"./nohosts.txt", "no such file"},
		{write("bad.txt", "h1\nh2 share=x\n"), "bad.txt:2: share=x: want a whole number"},
		{write("bad.yaml", "hosts:\n  - h1\n  - {host: h2, port: 22}\n"), `bad.yaml:3: hosts[1]: unknown field "port"`},
		{write("empty.txt", "# nothing\n"), "empty.txt: no hosts"},
		{write("twice.txt", "h1\n# h2\nh2\nh1 dir=/tmp/x\n"), "twice.txt:4: host h1 listed twice (first at " + dir + "/twice.txt:1)"},
		{write("twice.yaml", "hosts:\n  - h1\n  - {host: h1}\n"), "twice.yaml:3: host h1 listed twice (first at " + dir + "/twice.yaml:2)"},
		{"h1,h2,h1", "--hosts: entry 3: host h1 listed twice (first at --hosts: entry 1)"},
		{write("dirs.txt", "h1 dir=/a dir=/b\n"), "dirs.txt:1: dir= given twice"},
		{"h1 iface=a iface=b", "iface= given twice"},
	} {
		_, err := Parse(c.arg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q): %v, want %q", c.arg, err, c.want)
		}
	}
}

func TestAssignFollowsShares(t *testing.T) {
	ids := func(n int) []protocol.NodeID {
		var out []protocol.NodeID
		for i := 1; i <= n; i++ {
			out = append(out, protocol.NodeID(i))
		}
		return out
	}
	sizes := func(b [][]protocol.NodeID) []int {
		var out []int
		for _, x := range b {
			out = append(out, len(x))
		}
		return out
	}
	for _, c := range []struct {
		n      int
		shares []int
		want   []int
	}{
		{20, []int{1, 1, 1}, []int{6, 7, 7}},
		{20, []int{2, 1, 1}, []int{10, 5, 5}},
		{3, []int{1, 1, 1}, []int{1, 1, 1}},
		{4, []int{10, 1, 1}, []int{2, 1, 1}},
	} {
		b, err := assign(ids(c.n), c.shares)
		if err != nil {
			t.Fatal(err)
		}
		if got := sizes(b); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%d nodes, shares %v: %v, want %v", c.n, c.shares, got, c.want)
		}
		if b[0][0] != 1 || b[len(b)-1][len(b[len(b)-1])-1] != protocol.NodeID(c.n) {
			t.Errorf("blocks %v do not cover 1..%d", b, c.n)
		}
	}
	if _, err := assign(ids(2), []int{1, 1, 1}); err == nil || !strings.Contains(err.Error(), "3 hosts for 2 nodes") {
		t.Errorf("2 nodes on 3 hosts: %v", err)
	}
}

func TestIfaceOfTheSSHAddress(t *testing.T) {
	lines := []string{
		"1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever preferred_lft forever",
		"2: eth0@if7    inet 10.0.0.5/24 brd 10.0.0.255 scope global eth0\\       valid_lft forever",
		"3: eth1    inet 192.168.77.11/24 brd 192.168.77.255 scope global eth1",
	}
	for addr, want := range map[string]string{"192.168.77.11": "eth1", "10.0.0.5": "eth0", "10.0.0.6": ""} {
		if got := ifaceOf(lines, addr); got != want {
			t.Errorf("ifaceOf %s = %q, want %q", addr, got, want)
		}
	}
}

func TestClockOffsetKeepsTheShortestRoundTrip(t *testing.T) {
	t0 := time.Unix(1000, 0)
	// Remote 2 s ahead, read at the midpoint of a 10 ms round trip.
	s := offsetOf(t0, t0.Add(10*time.Millisecond), t0.Add(5*time.Millisecond+2*time.Second).UnixNano())
	if s.Offset != 2*time.Second || s.RTT != 10*time.Millisecond {
		t.Fatalf("sample %+v", s)
	}
	b := best([]clockSample{{Offset: 90 * time.Millisecond, RTT: 200 * time.Millisecond}, {Offset: time.Millisecond, RTT: 2 * time.Millisecond}, {Offset: 40 * time.Millisecond, RTT: 80 * time.Millisecond}})
	if b.RTT != 2*time.Millisecond {
		t.Errorf("best %+v, want the 2 ms round trip", b)
	}
}

func TestParseFaultsLeavesOutWhatIsNotARecord(t *testing.T) {
	in := `{"node":8,"ev":"crash","t":20001000000,"host":"h1"}
{"node":8,"ev":"recover","t":40002000000,"host":"h1"}
{"node":8,"ev":"explode","t":1,"host":"h1"}
{"node":3,"ev":"crash","t":5,"host":"h2"}
not json
{"node":8,"ev":"crash","t":1,"host":"h1","extra":1}
`
	fs, bad := parseFaults([]byte(in), "h1")
	if len(fs) != 2 || fs[0].Ev != "crash" || fs[1].T != 40002000000 {
		t.Errorf("faults %+v", fs)
	}
	if len(bad) != 4 || !strings.Contains(bad[0], "line 3") || !strings.Contains(bad[1], `host "h2": want "h1"`) {
		t.Errorf("left out %q", bad)
	}
}

func TestQuoteForTheRemoteShell(t *testing.T) {
	for _, s := range []string{"plain", "with space", "it's", `$(rm -rf /)`, "a\"b`c"} {
		out, err := exec.Command("sh", "-c", "printf %s "+quote(s)).Output()
		if err != nil || string(out) != s {
			t.Errorf("quote(%q) read back as %q, %v", s, out, err)
		}
	}
}

func TestCheckStatic(t *testing.T) {
	if err := CheckStatic("/bin/sh"); err == nil || !strings.Contains(err.Error(), "CGO_ENABLED=0") {
		t.Errorf("/bin/sh (dynamic): %v, want how to build a static one", err)
	}
	p := filepath.Join(t.TempDir(), "x")
	os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755)
	if err := CheckStatic(p); err == nil || !strings.Contains(err.Error(), "not an ELF executable") {
		t.Errorf("a script: %v", err)
	}
}

// TestInterfaceChecks: the interface a host's nodes use must exist, be
// up, carry multicast and have an IPv4 address; across hosts, each must
// share a network with another's, and an address every host has alike
// is a NAT interface (Vagrant's first), refused.
func TestInterfaceChecks(t *testing.T) {
	linkLines := []string{
		"1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN mode DEFAULT group default qlen 1000\\    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00",
		"2: eth0@if7: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc noqueue state UP mode DEFAULT group default",
		"3: eth1: <BROADCAST,MULTICAST> mtu 1500 qdisc noop state DOWN mode DEFAULT group default qlen 1000",
		"4: eth2: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc noqueue state UP",
	}
	addrLines := []string{
		"1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever preferred_lft forever",
		"2: eth0@if7    inet 10.0.2.15/24 brd 10.0.2.255 scope global eth0",
		"3: eth1    inet 192.168.56.11/24 scope global eth1",
	}
	ls := links(linkLines)
	for _, c := range []struct{ iface, want string }{
		{"eth0", ""},
		{"eth9", "interface eth9: no such interface there (it has eth0, eth1, eth2, lo)"},
		{"eth1", "interface eth1 is down"},
		{"lo", "interface lo has no MULTICAST flag: ip link set lo multicast on"},
		{"eth2", "interface eth2 has no IPv4 address"},
	} {
		err := checkIface(c.iface, ls, ifaceNets(addrLines, c.iface))
		if (c.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.iface, err, c.want)
		}
	}
	host := func(name, iface string, nets ...string) *session {
		x := &session{c: &conn{host: Host{Target: name}}, info: &hostInfo{iface: iface}}
		for _, n := range nets {
			x.info.nets = append(x.info.nets, netip.MustParsePrefix(n))
		}
		return x
	}
	if bad := checkNetworks([]*session{host("n1", "eth1", "192.168.56.11/24"), host("n2", "eth1", "192.168.56.12/24")}); len(bad) != 0 {
		t.Errorf("a shared network refused: %q", bad)
	}
	bad := checkNetworks([]*session{host("n1", "eth0", "10.0.2.15/24"), host("n2", "eth0", "10.0.2.15/24"), host("n3", "eth1", "192.168.56.13/24")})
	if len(bad) != 3 || !strings.Contains(bad[0], "host n1: its interface eth0 has the address 10.0.2.15, as n2's eth0 has: a NAT interface") ||
		!strings.Contains(bad[2], "host n3: its interface eth1 (192.168.56.13/24) is on no network of the other hosts' interfaces") {
		t.Errorf("NAT interfaces and a lone network: %q", bad)
	}
}
