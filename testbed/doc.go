// Package testbed holds the multi-host tests: scripts/netns-testbed.sh
// builds hosts from network namespaces joined by a bridge and runs real
// nodes on each with TTL 1, so frames cross a (virtual) network. It also
// checks the Vagrantfile's syntax. It has no code of its own: the tests
// build cmd/manetlab and run the script.
package testbed
