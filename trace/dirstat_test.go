package trace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStatDir(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope")
	if err := StatDir(missing); err == nil || err.Error() != "run directory "+missing+" does not exist" || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o644)
	if err := StatDir(file); err == nil || !strings.Contains(err.Error(), "is not a directory") {
		t.Errorf("file: %v", err)
	}
	if err := StatDir(dir); err != nil {
		t.Errorf("directory: %v", err)
	}
}
