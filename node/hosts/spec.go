package hosts

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"manetlab/internal/safefs"
)

// Host is one entry of the host list: where to ssh to and what to run
// there.
type Host struct {
	// Target is what ssh is given: [user@]host, a name of the ssh
	// configuration or an address.
	Target string `yaml:"host"`
	// Iface is the interface the nodes use there; empty: the one holding
	// the address the ssh connection arrived at.
	Iface string `yaml:"iface"`
	// Share weighs how many of the scenario's nodes run there (default 1).
	Share int `yaml:"share"`
	// Dir is the directory on the host that holds its run directories and
	// a copied binary (default manetlab-runs, in the login's home).
	Dir string `yaml:"dir"`
}

// maxHostsFile bounds a --hosts file: a host a line.
const maxHostsFile = 1 << 20

// DefaultDir is Host.Dir when the entry names none.
const DefaultDir = "manetlab-runs"

// Parse reads the --hosts value: a file (YAML with a "hosts" list, or
// one host per line) when one exists at that path, else a
// comma-separated list. An entry is "[user@]host" followed by optional
// key=value fields: iface=IF, share=N, dir=PATH.
func Parse(arg string) ([]Host, error) {
	if strings.TrimSpace(arg) == "" {
		return nil, errors.New("--hosts: empty: give a file or a list such as h1,h2,h3")
	}
	if st, err := os.Stat(arg); err == nil && !st.IsDir() {
		b, err := safefs.ReadInput(arg, "--hosts", maxHostsFile)
		if err != nil {
			return nil, err
		}
		return ParseFile(arg, b)
	}
	if strings.ContainsAny(arg, "/") && !strings.Contains(arg, ",") {
		return nil, fmt.Errorf("--hosts %s: no such file (a list of hosts is separated by commas: h1,h2,h3)", arg)
	}
	var hs []Host
	var where []string
	for i, e := range strings.Split(arg, ",") {
		h, err := parseEntry(e)
		if err != nil {
			return nil, fmt.Errorf("--hosts: entry %d %q: %w", i+1, strings.TrimSpace(e), err)
		}
		hs, where = append(hs, h), append(where, fmt.Sprintf("--hosts: entry %d", i+1))
	}
	return hs, check("--hosts", hs, where)
}

// ParseFile reads a hosts file's content b (name for messages): YAML
// with a "hosts" list of entries (strings as on a line, or mappings with
// host, iface, share, dir), else one entry per line, # starting a
// comment.
func ParseFile(name string, b []byte) ([]Host, error) {
	var doc struct {
		Hosts []yaml.Node `yaml:"hosts"`
	}
	if bytes.Contains(b, []byte("hosts:")) {
		if err := yaml.Unmarshal(b, &doc); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		var hs []Host
		var where []string
		for i, n := range doc.Hosts {
			var h Host
			var err error
			switch n.Kind {
			case yaml.ScalarNode:
				h, err = parseEntry(n.Value)
			case yaml.MappingNode:
				dec := n
				err = decodeStrict(&dec, &h)
				if err == nil && h.Share == 0 {
					h.Share = 1
				}
				if err == nil {
					err = checkEntry(h)
				}
			default:
				err = errors.New("want a string such as \"user@h1 iface=eth1\" or a mapping with host, iface, share, dir")
			}
			if err != nil {
				return nil, fmt.Errorf("%s:%d: hosts[%d]: %w", name, n.Line, i, err)
			}
			hs, where = append(hs, h), append(where, fmt.Sprintf("%s:%d", name, n.Line))
		}
		return hs, check(name, hs, where)
	}
	var hs []Host
	var where []string
	for i, line := range strings.Split(string(b), "\n") {
		if c := strings.IndexByte(line, '#'); c >= 0 {
			line = line[:c]
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		h, err := parseEntry(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, i+1, err)
		}
		hs, where = append(hs, h), append(where, fmt.Sprintf("%s:%d", name, i+1))
	}
	return hs, check(name, hs, where)
}

// decodeStrict decodes a mapping into h, refusing unknown keys.
func decodeStrict(n *yaml.Node, h *Host) error {
	for i := 0; i+1 < len(n.Content); i += 2 {
		switch k := n.Content[i].Value; k {
		case "host", "iface", "share", "dir":
		default:
			return fmt.Errorf("unknown field %q (want host, iface, share, dir)", k)
		}
	}
	return n.Decode(h)
}

// parseEntry reads "[user@]host [iface=IF] [share=N] [dir=PATH]".
func parseEntry(e string) (Host, error) {
	f := strings.Fields(e)
	if len(f) == 0 {
		return Host{}, errors.New("empty entry")
	}
	h := Host{Target: f[0], Share: 1}
	seen := map[string]bool{}
	for _, kv := range f[1:] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || v == "" {
			return Host{}, fmt.Errorf("%q: want key=value (iface=IF, share=N, dir=PATH)", kv)
		}
		if seen[k] {
			return Host{}, fmt.Errorf("%s= given twice", k)
		}
		seen[k] = true
		switch k {
		case "iface":
			h.Iface = v
		case "dir":
			h.Dir = v
		case "share":
			n, err := strconv.Atoi(v)
			if err != nil {
				return Host{}, fmt.Errorf("share=%s: want a whole number of 1 or more", v)
			}
			h.Share = n
		default:
			return Host{}, fmt.Errorf("unknown field %q (want iface, share, dir)", k)
		}
	}
	return h, checkEntry(h)
}

func checkEntry(h Host) error {
	switch {
	case h.Target == "":
		return errors.New("host: missing")
	case strings.HasPrefix(h.Target, "-") || strings.ContainsAny(h.Target, " \t'\"\\;&|$`/\x00") || h.Target == "." || h.Target == "..":
		// The name becomes a path too: log/hosts/HOST, log/host-HOST.log.
		return fmt.Errorf("host %s: not a host name ([user@]host)", safefs.Short(h.Target, 60))
	case h.Share < 1:
		return fmt.Errorf("share %d: want 1 or more", h.Share)
	case strings.ContainsAny(h.Iface, " \t'\"\\;&|$`/"):
		return fmt.Errorf("iface %q: not an interface name", h.Iface)
	}
	return safefs.CheckDirPath("host "+h.Target+": dir", h.Dir)
}

// check refuses an empty list and a host listed twice, naming where
// (where[i] is entry i's file:line, or its place in the list).
func check(name string, hs []Host, where []string) error {
	if len(hs) == 0 {
		return fmt.Errorf("%s: no hosts", name)
	}
	seen := map[string]int{}
	for i, h := range hs {
		if j, ok := seen[h.Target]; ok {
			return fmt.Errorf("%s: host %s listed twice (first at %s)", where[i], h.Target, where[j])
		}
		seen[h.Target] = i
	}
	return nil
}
