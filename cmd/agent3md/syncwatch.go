package main

import (
	"log/slog"

	"github.com/agent3md/agent3md/skillsync"
)

// watchLog is sync --watch's OnPass: print hands it a summary to print
// (the first pass's, then each one that changed or refused something);
// the log gets one line per event. skillsync reports a failed pass once
// from the pass and again as the connection is dropped, with the same
// error: the second is not logged.
func watchLog(logger *slog.Logger, src *skillsync.Source, dir string, f *syncFlags, print func(*skillsync.Summary)) func(*skillsync.Summary, error) {
	first, failing := true, false
	var last error
	return func(sum *skillsync.Summary, err error) {
		if err != nil {
			if err != last {
				logger.Warn("sync failed; trying again, waiting up to 30s between tries",
					"source", src.String(), "err", syncFix(err, src, f.http.tokenFile).Error())
			}
			last, failing = err, true
			return
		}
		switch {
		case first:
			print(sum)
			logger.Info("watching for changes: the server's notifications start a pass, and one runs every interval",
				"source", src.String(), "dir", dir, "interval", f.interval.String()) // "1m0s" in JSON too, not nanoseconds
		case failing:
			logger.Info("synced again", "source", src.String())
			fallthrough
		case sum.Changed() || !sum.OK():
			print(sum)
		}
		first, failing, last = false, false, nil
	}
}
