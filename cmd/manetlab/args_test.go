package main

import (
	"reflect"
	"testing"
)

func TestReorderArgsPutsFlagsBeforePositionals(t *testing.T) {
	app := newApp()
	cases := []struct{ in, want []string }{
		{
			[]string{"manetlab", "sim", "configs/q.yaml", "--json", "--out", "runs/q"},
			[]string{"manetlab", "sim", "--json", "--out", "runs/q", "configs/q.yaml"},
		},
		{
			[]string{"manetlab", "sim", "--seed", "7", "q.yaml", "--set", "radio.range=250", "--set=nodes.count=200"},
			[]string{"manetlab", "sim", "--seed", "7", "--set", "radio.range=250", "--set=nodes.count=200", "q.yaml"},
		},
		{
			[]string{"manetlab", "mobility", "sample", "f.ns2", "--at", "0:10:1"},
			[]string{"manetlab", "mobility", "sample", "--at", "0:10:1", "f.ns2"},
		},
		{
			// "--" ends flags: what follows stays positional.
			[]string{"manetlab", "sim", "a.yaml", "--", "--json"},
			[]string{"manetlab", "sim", "a.yaml", "--", "--json"},
		},
	}
	for _, c := range cases {
		if got := reorderArgs(app, c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("reorderArgs(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}
