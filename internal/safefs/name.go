package safefs

import (
	"fmt"
	"strings"
)

// CheckName refuses a name given by the user that becomes one component
// of a path (a run name: runs/NAME, and DIR/NAME on every host): empty,
// "." or "..", or holding a path separator or a NUL, it would name
// another directory than the one meant (--run ../../x put a host's run
// directory outside its dir, and its removal after the run with it).
// what names the name in the message ("--run").
func CheckName(what, name string) error {
	bad := ""
	switch {
	case name == "":
		bad = "is empty"
	case name == "." || name == "..":
		bad = "is " + name
	case strings.ContainsAny(name, "/\\\x00"):
		c := name[strings.IndexAny(name, "/\\\x00")]
		bad = fmt.Sprintf("holds %q, a path separator", c)
		if c == 0 {
			bad = "holds a NUL byte"
		}
	case len(name) > 255:
		bad = fmt.Sprintf("is %d bytes long, more than a file name may be (255)", len(name))
	}
	if bad == "" {
		return nil
	}
	return fmt.Errorf("%s %s: a name, not a path, is wanted, and it %s", what, Short(name, 60), bad)
}

// CheckDirPath refuses a directory path given by the user with a ".."
// component: it is meant to name a place, not to climb out of one.
func CheckDirPath(what, dir string) error {
	for _, c := range strings.Split(dir, "/") {
		if c == ".." {
			return fmt.Errorf("%s %s: a \"..\" component is not allowed; give the directory itself", what, Short(dir, 60))
		}
	}
	if strings.ContainsRune(dir, 0) {
		return fmt.Errorf("%s %s: holds a NUL byte", what, Short(dir, 60))
	}
	return nil
}
