package userfile_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/driplab/drip/internal/userfile"
)

var body = userfile.Kind{What: "a request body", Limit: 1 << 10, Stdin: true}

// endless is stdin that never ends (/dev/zero piped in), counting the
// bytes it gave.
type endless struct{ n int64 }

func (e *endless) Read(p []byte) (int, error) {
	e.n += int64(len(p))
	return len(p), nil
}

// A regular file within its limit reads whole; "-" is stdin only for a
// kind that takes it, and a file named "-" otherwise.
func TestReadReadsARegularFileAndStdin(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for name, text := range map[string]string{"ok.json": `{"a":1}`, "-": "a file named -"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		path string
		k    userfile.Kind
		want string
	}{
		{"ok.json", body, `{"a":1}`},
		{"-", body, "from stdin"},
		{"-", userfile.Kind{What: "a config file", Limit: 1 << 10}, "a file named -"},
	} {
		b, err := userfile.Read(context.Background(), c.path, c.k, strings.NewReader("from stdin"))
		if err != nil || string(b) != c.want {
			t.Errorf("%s (stdin %v): %q, %v; want %q", c.path, c.k.Stdin, b, err, c.want)
		}
	}
}

// What is no regular file is refused at once, naming its kind, what the
// flag reads and that "-" is stdin: /dev/zero is not read, a FIFO with
// no writer does not block, a directory is not a file.
func TestReadRefusesWhatIsNoRegularFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for path, says := range map[string]string{
		"/dev/zero": "/dev/zero: not a regular file (a character device): drip reads a request body from a regular file (or - for stdin)",
		fifo:        fifo + ": not a regular file (a FIFO)",
		dir:         dir + ": not a regular file (a directory)",
	} {
		_, err := userfile.Read(context.Background(), path, body, nil)
		if !errors.Is(err, userfile.ErrNotRegular) || !strings.Contains(err.Error(), says) {
			t.Errorf("%s: %v; want %q", path, err, says)
		}
	}
	if _, err := userfile.Read(context.Background(), filepath.Join(dir, "missing"), body, nil); err == nil || !strings.HasSuffix(err.Error(), "missing: no such file or directory") {
		t.Errorf("a missing file: %v; want its path and no such file", err)
	}
}

// A file past its kind's limit is refused, naming the limit and the kind;
// so is stdin, having read one byte past the limit and no more.
func TestReadRefusesPastTheLimit(t *testing.T) {
	t.Parallel()
	big := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(big, make([]byte, 1<<10+1), 0o600); err != nil {
		t.Fatal(err)
	}
	const says = "more than 1 KiB, the most drip reads of a request body"
	if _, err := userfile.Read(context.Background(), big, body, nil); !errors.Is(err, userfile.ErrTooLarge) || !strings.Contains(err.Error(), "big.json: over the size limit: "+says) {
		t.Errorf("a file of 1 KiB and a byte: %v; want %q", err, says)
	}
	in := &endless{}
	if _, err := userfile.Read(context.Background(), "-", body, in); !errors.Is(err, userfile.ErrTooLarge) || !strings.Contains(err.Error(), "stdin: over the size limit: "+says) {
		t.Errorf("endless stdin: %v; want %q", err, says)
	}
	if in.n > 1<<10+1 {
		t.Errorf("endless stdin: read %d bytes for a limit of 1 KiB", in.n)
	}
}

// cancelling stdin cancels the context on its 10th read.
type cancelling struct {
	reads  int
	cancel func()
}

func (c *cancelling) Read(p []byte) (int, error) {
	if c.reads++; c.reads == 10 {
		c.cancel()
	}
	return len(p), nil
}

// A done context stops the reading (a SIGTERM while stdin streams in)
// and says so with the context's error.
func TestReadStopsWhenItsContextIsDone(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	in := &cancelling{cancel: cancel}
	_, err := userfile.Read(ctx, "-", userfile.Kind{What: "a request body", Limit: 1 << 40, Stdin: true}, in)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled mid-read: %v; want context.Canceled", err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	blocked, w := io.Pipe() // a terminal nobody types at
	defer w.Close()
	if _, err := userfile.Read(ctx, "-", body, blocked); !errors.Is(err, context.Canceled) {
		t.Errorf("stdin that sends nothing, cancelled: %v; want context.Canceled", err)
	}
}
