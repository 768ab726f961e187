package listfile

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var errBad = errors.New("test file is damaged")

// TestRoundTrip: what the Append functions write, a Reader reads back,
// with nothing left over.
func TestRoundTrip(t *testing.T) {
	ints := []uint32{0, 1, 127, 128, 1 << 31}
	terms := map[string]uint32{"deploy": 0, "": 1, "部署": 2}
	buf := AppendInts([]byte("TEST"), ints)
	buf = AppendFloat(buf, 0.75)
	buf = AppendTerms(buf, terms)
	buf = append(buf, 3, 'a', 'b', 'c') // a list of bytes: its length, then them
	d := NewReader(buf, "TEST", errBad)
	gotInts, f, gotTerms, b := d.Ints("ints"), d.Float(), d.Terms(), d.Bytes("bytes")
	if err := d.End("lists"); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(gotInts, ints) || f != 0.75 || !maps.Equal(gotTerms, terms) || string(b) != "abc" {
		t.Errorf("read %v %v %v %q", gotInts, f, gotTerms, b)
	}
}

// TestStrings: String and Byte read back what was written, as copies
// or cut from the shared input, whichever ShareStrings says.
func TestStrings(t *testing.T) {
	buf := append([]byte("TEST"), 3, 'a', 'b', 'c', 7, 0, 6)
	buf = append(buf, "部署"...)
	for _, share := range []bool{false, true} {
		d := NewReader(buf, "TEST", errBad)
		if share {
			d.ShareStrings(string(buf[len("TEST"):]))
		}
		a, b, c, e := d.String("name"), d.Byte("flags"), d.String("empty"), d.String("word")
		if err := d.End("strings"); err != nil {
			t.Fatal(err)
		}
		if a != "abc" || b != 7 || c != "" || e != "部署" {
			t.Errorf("share %v: read %q %d %q %q", share, a, b, c, e)
		}
	}
}

// TestDamage: every damaged file is an error wrapping the caller's,
// saying what is wrong, and no length past the bytes left is allocated.
func TestDamage(t *testing.T) {
	good := AppendTerms([]byte("TEST"), map[string]uint32{"a": 0, "bb": 1})
	for _, tt := range []struct {
		name string
		data []byte
		read func(d *Reader)
		want string
	}{
		{"bad magic", []byte("NOPE"), func(d *Reader) { d.Terms() }, "bad magic"},
		{"short magic", []byte("TE"), func(d *Reader) { d.Terms() }, "bad magic"},
		{"cut varint", []byte("TEST\x80"), func(d *Reader) { d.Uvarint() }, "cut off or overlong"},
		{"huge count", []byte("TEST\xff\xff\xff\xff\x0f"), func(d *Reader) { d.Ints("items") }, "4294967295 items in the 0 bytes left"},
		{"count by unit", []byte("TEST\x02abc"), func(d *Reader) { d.Count(2, "pairs") }, "2 pairs in the 3 bytes left"},
		{"int too big", []byte("TEST\x01\xff\xff\xff\xff\x1f"), func(d *Reader) { d.Ints("items") }, "items item 0 is"},
		{"cut float", []byte("TEST\x01\x02"), func(d *Reader) { d.Float() }, "a number is cut off"},
		{"cut byte", []byte("TEST"), func(d *Reader) { d.Byte("flags") }, "flags cut off"},
		{"cut string", []byte("TEST\x05ab"), func(d *Reader) { d.String("name") }, "5 name in the 2 bytes left"},
		{"term bytes missing", good[:len(good)-1], func(d *Reader) { d.Terms() }, "terms of 3 bytes in the 2 left"},
		{"term twice", []byte("TEST\x02\x01\x01aa"), func(d *Reader) { d.Terms() }, "a term is listed twice"},
		{"bytes left", append(slices.Clone(good), 0), func(d *Reader) { d.Terms() }, "1 bytes after the lists"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := NewReader(tt.data, "TEST", errBad)
			tt.read(d)
			err := d.End("lists")
			if !errors.Is(err, errBad) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error wrapping %v saying %q", err, errBad, tt.want)
			}
		})
	}
}

// TestRead: a file is read whole; a missing one is the open error.
func TestRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.bin")
	if err := os.WriteFile(path, []byte("TEST\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := Read(path, errBad); err != nil || string(data) != "TEST\x00" {
		t.Errorf("Read = %q, %v", data, err)
	}
	if _, err := Read(path+".missing", errBad); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// FuzzReader: any bytes decode to an error or lists, never a panic, and
// never more items than the bytes could hold.
func FuzzReader(f *testing.F) {
	f.Add(AppendInts(AppendTerms([]byte("TEST"), map[string]uint32{"x": 0}), []uint32{1, 2}))
	f.Add([]byte("TEST\xff\xff\xff\xff\x0f"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d := NewReader(data, "TEST", errBad)
		terms, ints, b := d.Terms(), d.Ints("ints"), d.Bytes("bytes")
		if len(terms)+len(ints)+len(b) > len(data) {
			t.Fatalf("%d items from %d bytes", len(terms)+len(ints)+len(b), len(data))
		}
		if err := d.End("lists"); err != nil && !errors.Is(err, errBad) {
			t.Fatalf("error %v does not wrap the file's", err)
		}
	})
}
