package skillsync

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"testing"
)

// The test binary doubles as the child processes some tests need: a
// stdio skills server (SKILLSYNC_FAKE_STDIO names its configuration
// file; SIGUSR1 reads it again and sends list_changed), and a sync to
// kill mid-way (SKILLSYNC_SYNC_URL and SKILLSYNC_SYNC_DIR).
func TestMain(m *testing.M) {
	if path := os.Getenv("SKILLSYNC_FAKE_STDIO"); path != "" {
		os.Exit(fakeStdioMain(path))
	}
	if url := os.Getenv("SKILLSYNC_SYNC_URL"); url != "" {
		_, err := Sync(context.Background(), &Source{URL: url}, &Options{Dir: os.Getenv("SKILLSYNC_SYNC_DIR"), Workers: 4})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func loadConfig(path string) (fakeConfig, error) {
	var c fakeConfig
	b, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	return c, err
}

func fakeStdioMain(path string) int {
	cfg, err := loadConfig(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	f := &fake{cfg: cfg, sig: make(chan struct{}, 1)}
	usr := make(chan os.Signal, 1)
	signal.Notify(usr, syscall.SIGUSR1)
	notify := make(chan struct{})
	go func() {
		for range usr {
			if c, err := loadConfig(path); err == nil {
				f.set(func(old *fakeConfig) { *old = c })
				notify <- struct{}{}
			}
		}
	}()
	if err := os.WriteFile(path+".pid", fmt.Append(nil, os.Getpid()), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	f.serveStdio(os.Stdin, os.Stdout, notify)
	return 0
}
