package bytesize

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// Parse reads a byte count: digits with an optional unit B, KiB, MiB,
// GiB or TiB (also KB, MB, GB, TB as their binary sizes).
func Parse(s string) (int64, error) {
	return parseIn(s, allUnits)
}

// ParseBinary is Parse with only the units GOMEMLIMIT takes (B, KiB, MiB,
// GiB, TiB).
func ParseBinary(s string) (int64, error) {
	return parseIn(s, binaryUnits)
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

// parseIn is Parse with only the given units.
func parseIn(s string, units []sizeUnit) (int64, error) {
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

// Value is a byte-count flag that takes units ("64KiB", "512MiB") as
// well as plain digits, so --max-bytes reads like --cache-max-size and
// --memory-limit. Exactly one of Int64 and Int is set.
type Value struct {
	Int64 *int64
	Int   *int
}

func (v Value) String() string {
	switch {
	case v.Int64 != nil:
		return strconv.FormatInt(*v.Int64, 10)
	case v.Int != nil:
		return strconv.Itoa(*v.Int)
	}
	return "0"
}

// Set reads a size; a negative number is kept for the caller's range
// check, which names the valid range.
func (v Value) Set(s string) error {
	// A sign is kept for the range check to refuse with the valid range:
	// "-1" must not read as "not a size".
	if n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64); err == nil && n < 0 {
		return v.set(n)
	}
	n, err := Parse(s)
	if err != nil {
		return err
	}
	return v.set(n)
}

func (v Value) set(n int64) error {
	if v.Int64 != nil {
		*v.Int64 = n
		return nil
	}
	if n > math.MaxInt {
		return fmt.Errorf("%d bytes is past what this flag can hold", n)
	}
	*v.Int = int(n)
	return nil
}

// Type names the flag's kind in help.
func (v Value) Type() string { return "size" }

// Int64Var and IntVar define a byte-count flag with units.
func Int64Var(fs *pflag.FlagSet, p *int64, name string, def int64, usage string) {
	*p = def
	fs.Var(Value{Int64: p}, name, usage)
}

// IntVar is Int64Var for an int.
func IntVar(fs *pflag.FlagSet, p *int, name string, def int, usage string) {
	*p = def
	fs.Var(Value{Int: p}, name, usage)
}

// Human writes n in the largest binary unit that keeps it at least 1.
func Human(n int64) string {
	const units = "KMGT"
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	f, i := float64(n)/1024, 0
	for f >= 1024 && i < len(units)-1 {
		f /= 1024
		i++
	}
	return fmt.Sprintf("%.1f %ciB", f, units[i])
}
