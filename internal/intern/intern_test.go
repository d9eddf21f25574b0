package intern

import "testing"

func TestIndex(t *testing.T) {
	tab := New("")
	a, b := tab.Index("send"), tab.Index("recv")
	if a != 1 || b != 2 || tab.Index("send") != 1 || tab.Index("") != 0 {
		t.Fatalf("indexes %d %d, table %q", a, b, tab.Strs)
	}
	if len(tab.Strs) != 3 || tab.Strs[a] != "send" || tab.Strs[b] != "recv" {
		t.Fatalf("table %q", tab.Strs)
	}
}
