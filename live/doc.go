// Package live serves a run as it happens (`manetlab run --live`) or as
// its directory grows (`manetlab trace watch`): a Follower reads the run
// directory's files as they grow (the nodes' traces, streamed home by
// the collector with run --hosts, and the faults record) into a State
// whose memory is bounded (a window of recent events, aggregates beyond
// it), which the page polls. The page draws with the studio's map and
// styles (studio.MapJS, studio.PageCSS) and is served behind the
// studio's guard by its hardened server. The verdict so far is the run
// summary's (report.SummarizeFrom) on the run up to the time reached.
// Faults by hand go to a Faulter: the launcher that runs the node.
// docs/live.md describes the page.
package live
