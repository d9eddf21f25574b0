// Package link is the real driver's transport: UDP multicast on one group,
// shared by every node process on a host, with the traps of Linux
// multicast disarmed (see STYLE.md). A Conn sends whole frames and
// receives only datagrams addressed to its own group on its own
// interface; it knows nothing of the frame format, and the sender's
// address is ignored because identity comes from the frame.
//
// The default TTL is 0: frames loop back to the sockets of this host and
// never reach a wire. Several machines need TTL 1 and an interface.
//
// It imports only the standard library and golang.org/x/net.
package link
