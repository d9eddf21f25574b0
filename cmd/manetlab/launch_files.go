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
	return safefs.WriteFileAtomic(filepath.Join(dir, hosts.PIDFile), []byte(strconv.Itoa(os.Getpid())+"\n"))
}

// writeResultFile records the launcher's result (JSON) in its run
// directory.
func writeResultFile(dir string, b []byte) error {
	return safefs.WriteFileAtomic(filepath.Join(dir, hosts.ResultFile), append(b, '\n'))
}
