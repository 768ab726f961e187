package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// parseSize reads a byte count: digits with an optional unit B, KiB, MiB,
// GiB or TiB (also KB, MB, GB, TB as their binary sizes).
func parseSize(s string) (int64, error) {
	return parseSizeIn(s, allUnits)
}

// sizeUnit is a unit suffix and its multiple.
type sizeUnit struct {
	suffix string
	mult   int64
}

var (
	// binaryUnits are the units GOMEMLIMIT takes.
	binaryUnits = []sizeUnit{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"B", 1}}
	allUnits    = append([]sizeUnit{{"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}, {"TB", 1 << 40}}, binaryUnits...)
)

// parseSizeIn is parseSize with only the given units.
func parseSizeIn(s string, units []sizeUnit) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range units {
		if rest, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mult = strings.TrimSpace(rest), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("%q is not a size: write digits with an optional unit B, KiB, MiB, GiB or TiB, e.g. 512MiB", s)
	}
	return n * mult, nil
}

// sizeValue is a byte-count flag that takes units ("64KiB", "512MiB") as
// well as plain digits, so --max-bytes reads like --cache-max-size and
// --memory-limit. Exactly one of i64 and i is set.
type sizeValue struct {
	i64 *int64
	i   *int
}

func (v sizeValue) String() string {
	switch {
	case v.i64 != nil:
		return strconv.FormatInt(*v.i64, 10)
	case v.i != nil:
		return strconv.Itoa(*v.i)
	}
	return "0"
}

func (v sizeValue) Set(s string) error {
	// A sign is kept for the range check to refuse with the valid range:
	// "-1" must not read as "not a size".
	if n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64); err == nil && n < 0 {
		return v.set(n)
	}
	n, err := parseSize(s)
	if err != nil {
		return err
	}
	return v.set(n)
}

func (v sizeValue) set(n int64) error {
	if v.i64 != nil {
		*v.i64 = n
		return nil
	}
	if n > math.MaxInt {
		return fmt.Errorf("%d bytes is past what this flag can hold", n)
	}
	*v.i = int(n)
	return nil
}

func (v sizeValue) Type() string { return "size" }

// int64SizeVar and intSizeVar define a byte-count flag with units.
func int64SizeVar(fs *pflag.FlagSet, p *int64, name string, def int64, usage string) {
	*p = def
	fs.Var(sizeValue{i64: p}, name, usage)
}

func intSizeVar(fs *pflag.FlagSet, p *int, name string, def int, usage string) {
	*p = def
	fs.Var(sizeValue{i: p}, name, usage)
}
