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

func TestClone(t *testing.T) {
	a := New("", "x")
	b := a.Clone()
	if b.Index("y") != 2 || a.Index("z") != 2 || a.Strs[2] != "z" || b.Strs[2] != "y" || b.Index("x") != 1 {
		t.Fatalf("a %q, b %q: a clone shares its table", a.Strs, b.Strs)
	}
}
