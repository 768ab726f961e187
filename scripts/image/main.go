package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "image: %v\n", err)
		os.Exit(2)
	}
}

const usage = `usage:
  image build -o OUT.tar [-tag TAG] [-version V] BINARY...
  image extract [-platform OS/ARCH] OCI.tar > rootfs.tar`

func run(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return errors.New(usage)
	}
	switch args[0] {
	case "build":
		fs := flag.NewFlagSet("build", flag.ContinueOnError)
		out := fs.String("o", "", "the OCI archive to write")
		tag := fs.String("tag", "latest", "the image's reference name in the archive (org.opencontainers.image.ref.name)")
		version := fs.String("version", "", "the org.opencontainers.image.version label (default: the tag)")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if *out == "" || fs.NArg() == 0 {
			return errors.New(usage)
		}
		epoch, err := sourceDate()
		if err != nil {
			return err
		}
		v := *version
		if v == "" {
			v = *tag
		}
		return build(&buildOptions{Out: *out, Tag: *tag, Version: v, Binaries: fs.Args(), Time: epoch})
	case "extract":
		fs := flag.NewFlagSet("extract", flag.ContinueOnError)
		platform := fs.String("platform", "", "OS/ARCH of the image to extract (default: the only one)")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if fs.NArg() != 1 {
			return errors.New(usage)
		}
		return extract(fs.Arg(0), *platform, stdout)
	}
	return fmt.Errorf("unknown command %q\n%s", args[0], usage)
}

// sourceDate is SOURCE_DATE_EPOCH as a time (the reproducible-builds
// convention), the Unix epoch when it is unset.
func sourceDate() (time.Time, error) {
	s := os.Getenv("SOURCE_DATE_EPOCH")
	if s == "" {
		return time.Unix(0, 0).UTC(), nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH %q: want seconds since 1970", s)
	}
	return time.Unix(n, 0).UTC(), nil
}
