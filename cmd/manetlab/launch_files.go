package main

import (
	"os"
	"path/filepath"
	"strconv"

	"manetlab/internal/safefs"
	"manetlab/node/hosts"
)

// writePID records the launcher's PID in its run directory.
func writePID(dir string) error {
	return writeAside(filepath.Join(dir, hosts.PIDFile), []byte(strconv.Itoa(os.Getpid())+"\n"))
}

// writeResultFile records the launcher's result (JSON) in its run
// directory.
func writeResultFile(dir string, b []byte) error {
	return writeAside(filepath.Join(dir, hosts.ResultFile), append(b, '\n'))
}

// writeAside writes path whole or not at all: a temporary file beside
// it, renamed.
func writeAside(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := safefs.WriteFile(tmp, b); err != nil {
		return err
	}
	return safefs.Rename(tmp, path)
}
