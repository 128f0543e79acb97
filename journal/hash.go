package journal

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// A file's content is named by one of two hashes, and saved in one of two
// forms, decided by the content alone (never by how the file system lays
// it out, so that a file has one hash whatever its holes):
//
//   - A file with no block of zeroBlock zero bytes at an offset that is a
//     multiple of zeroBlock (nearly every file: text, code) is hashed as
//     it always was, the SHA-256 of its bytes, and saved as its bytes.
//   - Any other (a sparse file from `truncate -s 1T`, a disk image, a
//     database) is hashed and saved in its zero-run form, "z1": its size,
//     then each zeroBlock-sized block in turn, a run of zero blocks as
//     one count and every other block as its bytes. Its hash is
//     "z1:" and the SHA-256 of that form. The holes of a sparse file are
//     found with SEEK_DATA and SEEK_HOLE and never read, so a 1 TiB file
//     with a few bytes in it costs what its few bytes cost, and is put
//     back with its holes.
//
// Either way the content is read in chunks and ctx is looked at between
// them, so a time limit or a signal stops a hash promptly.
const (
	zeroBlock = 64 << 10
	chunk     = 1 << 20
	z1Prefix  = "z1:"
	z1Magic   = "nightshift-z1\n"
	recData   = 'D'
	recZeros  = 'Z'
)

// zeros is a block of zeros to compare with: an array, laid out by the
// linker in the zeroed data segment, not a slice every start allocates.
var zeros [zeroBlock]byte

var chunks = sync.Pool{New: func() any { b := make([]byte, chunk); return &b }}

// hashed is a file's content as read: its hash, its size, and for the
// zero-run form the length of that form (what the pack holds).
type hashed struct {
	hash   string
	size   int64
	packed int64
}

// errRestart says a plain read found a zero block: the file is read again
// in the zero-run form.
var errRestart = errors.New("restart in the zero-run form")

// hashFile reads the open regular file f (size bytes when it was
// stat'ed) and hashes it; when save is not nil, the saved form is written
// to it as it is read, so that the hash and the copy are of the same
// bytes, and reset is called to drop what was written when the form
// changes midway. With plain set, every file is hashed in the plain form
// (to compare with a journal of an earlier version).
func hashFile(ctx context.Context, f *os.File, size int64, save io.Writer, reset func() error, plain bool) (hashed, error) {
	// Never past the size it had when it was stat'ed: a file something
	// keeps writing (a process that outlived its command, a server's log)
	// would be read, and saved, for as long as it grows. What is taken is
	// the file as it was then; what it became is a change, seen as one.
	r := io.LimitReader(f, max(size, 0))
	if plain {
		return hashPlain(ctx, r, save, false)
	}
	if !hasHoles(f, size) {
		h, err := hashPlain(ctx, r, save, true)
		if !errors.Is(err, errRestart) {
			return h, err
		}
		if reset != nil {
			if err := reset(); err != nil {
				return hashed{}, err
			}
		}
	}
	return hashZ1(ctx, f, size, save)
}

// hasHoles reports whether the file system says f has a hole before its
// end. One that cannot tell (no SEEK_HOLE) has none as far as we know,
// and the plain read finds its zero blocks.
func hasHoles(f *os.File, size int64) bool {
	if size < zeroBlock {
		return false
	}
	fd := int(f.Fd())
	off, err := unix.Seek(fd, 0, unix.SEEK_HOLE)
	if err != nil {
		return false
	}
	// The seek moved the file's offset; the plain read starts at 0.
	if _, err := unix.Seek(fd, 0, io.SeekStart); err != nil {
		return true // the zero-run form reads at offsets, not from the offset
	}
	return off < size
}

// hashPlain hashes f's bytes, and, when zeroCheck is set, stops with
// errRestart at the first aligned zero block.
func hashPlain(ctx context.Context, f io.Reader, save io.Writer, zeroCheck bool) (hashed, error) {
	bp := chunks.Get().(*[]byte)
	defer chunks.Put(bp)
	buf := *bp
	h := sha256.New()
	w := io.Writer(h)
	if save != nil {
		w = io.MultiWriter(h, save)
	}
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return hashed{}, err
		}
		// Whole chunks from offset 0, so that every block of zeroBlock
		// bytes in a chunk sits at a multiple of zeroBlock.
		k, err := io.ReadFull(f, buf)
		for b := 0; zeroCheck && b+zeroBlock <= k; b += zeroBlock {
			if bytes.Equal(buf[b:b+zeroBlock], zeros[:]) {
				return hashed{}, errRestart
			}
		}
		if k > 0 {
			if _, werr := w.Write(buf[:k]); werr != nil {
				return hashed{}, werr
			}
			n += int64(k)
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return hashed{hash: hex.EncodeToString(h.Sum(nil)), size: n}, nil
		}
		if err != nil {
			return hashed{}, err
		}
	}
}

// countWriter counts what goes through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// hashZ1 reads f in the zero-run form: the holes the file system reports
// are skipped, every other block is read and looked at.
func hashZ1(ctx context.Context, f *os.File, size int64, save io.Writer) (hashed, error) {
	h := sha256.New()
	var sink io.Writer = h
	if save != nil {
		sink = io.MultiWriter(h, save)
	}
	cw := &countWriter{w: sink}
	bw := bufio.NewWriterSize(cw, 64<<10)
	bw.WriteString(z1Magic)
	writeUvarint(bw, uint64(size))
	var zrun int64
	flush := func() {
		if zrun > 0 {
			bw.WriteByte(recZeros)
			writeUvarint(bw, uint64(zrun))
			zrun = 0
		}
	}
	buf := make([]byte, zeroBlock)
	fd := int(f.Fd())
	// [dataStart, dataEnd) is the data region at or after the current
	// block, as SEEK_DATA and SEEK_HOLE last said; refreshed once a
	// block reaches past it.
	dataStart, dataEnd := int64(-1), int64(-1)
	read := int64(0)
	for pos := int64(0); pos < size; {
		if read >= chunk {
			if err := ctx.Err(); err != nil {
				return hashed{}, err
			}
			read = 0
		}
		if pos >= dataEnd {
			if err := ctx.Err(); err != nil {
				return hashed{}, err
			}
			dataStart, dataEnd = dataRegion(fd, pos, size)
		}
		if full := (dataStart - pos) / zeroBlock; full > 0 {
			// Whole blocks in a hole: zeros, never read.
			zrun += full * zeroBlock
			pos += full * zeroBlock
			continue
		}
		n := min(int64(zeroBlock), size-pos)
		k, err := f.ReadAt(buf[:n], pos)
		if err != nil && !errors.Is(err, io.EOF) {
			return hashed{}, err
		}
		read += int64(k)
		if int64(k) < n {
			// The file shrank while we read it: what is there is what
			// is saved, and the size says so.
			size, n = pos+int64(k), int64(k)
		}
		if n == zeroBlock && bytes.Equal(buf, zeros[:]) {
			zrun += zeroBlock
		} else if n > 0 {
			flush()
			bw.WriteByte(recData)
			writeUvarint(bw, uint64(n))
			bw.Write(buf[:n])
		}
		pos += n
	}
	flush()
	if err := bw.Flush(); err != nil {
		return hashed{}, err
	}
	// The size written first is the one the file had; if it shrank the
	// form is still whole: its records say where the content ends.
	return hashed{hash: z1Prefix + hex.EncodeToString(h.Sum(nil)), size: size, packed: cw.n}, nil
}

// dataRegion returns the data region at or after pos: where it starts
// and where the hole after it starts (size when there is none). A file
// system that cannot tell has one region, all data.
func dataRegion(fd int, pos, size int64) (int64, int64) {
	start, err := unix.Seek(fd, pos, unix.SEEK_DATA)
	if errors.Is(err, unix.ENXIO) {
		return size, size // a hole to the end
	}
	if err != nil || start < pos {
		return pos, size
	}
	end, err := unix.Seek(fd, start, unix.SEEK_HOLE)
	if err != nil || end <= start {
		end = size
	}
	// Block-aligned where the data begins, so that a block that holds
	// the start of the data is read.
	return start - start%zeroBlock, min(end, size)
}

func writeUvarint(w *bufio.Writer, v uint64) {
	var b [binary.MaxVarintLen64]byte
	w.Write(b[:binary.PutUvarint(b[:], v)])
}

// isZ1 reports whether a hash names content in the zero-run form.
func isZ1(hash string) bool { return strings.HasPrefix(hash, z1Prefix) }

// sumOf returns the hex SHA-256 a hash of either form checks its saved
// bytes against.
func sumOf(hash string) string { return strings.TrimPrefix(hash, z1Prefix) }

// writeZ1 writes content saved in the zero-run form, read from r, into
// the new, empty file dst: blocks of data where they were, holes for the
// runs of zeros, and the size last. ctx is looked at between blocks.
func writeZ1(ctx context.Context, dst *os.File, r io.Reader) error {
	br := bufio.NewReaderSize(r, 64<<10)
	magic := make([]byte, len(z1Magic))
	if _, err := io.ReadFull(br, magic); err != nil || string(magic) != z1Magic {
		return fmt.Errorf("saved content: not in the zero-run form")
	}
	// The size the file had when it was read; the records say where
	// the content ends (less, if it shrank while it was read).
	if _, err := binary.ReadUvarint(br); err != nil {
		return fmt.Errorf("saved content: %w", err)
	}
	buf := make([]byte, zeroBlock)
	var pos int64
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		kind, err := br.ReadByte()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		n, err := binary.ReadUvarint(br)
		if err != nil {
			return fmt.Errorf("saved content: %w", err)
		}
		switch kind {
		case recZeros:
			pos += int64(n)
		case recData:
			if n > zeroBlock {
				return fmt.Errorf("saved content: a block of %d bytes", n)
			}
			if _, err := io.ReadFull(br, buf[:n]); err != nil {
				return fmt.Errorf("saved content: %w", err)
			}
			if _, err := dst.WriteAt(buf[:n], pos); err != nil {
				return err
			}
			pos += int64(n)
		default:
			return fmt.Errorf("saved content: unknown record %q", kind)
		}
	}
	// A run of zeros at the end is a hole up to the size.
	return dst.Truncate(pos)
}

// copyContext copies r to w in chunks, looking at ctx between them.
func copyContext(ctx context.Context, w io.Writer, r io.Reader) (int64, error) {
	bp := chunks.Get().(*[]byte)
	defer chunks.Put(bp)
	buf := *bp
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		k, err := r.Read(buf)
		if k > 0 {
			if _, werr := w.Write(buf[:k]); werr != nil {
				return n, werr
			}
			n += int64(k)
		}
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}
