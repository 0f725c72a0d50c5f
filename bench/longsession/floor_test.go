package longsession

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// floorClientEnv makes the test binary the floor client (TestMain): the
// variable holds the model server's URL, floorSizesEnv the body sizes.
const (
	floorClientEnv = "LONGSESSION_FLOOR_URL"
	floorSizesEnv  = "LONGSESSION_FLOOR_SIZES"
)

func TestMain(m *testing.M) {
	if url := os.Getenv(floorClientEnv); url != "" {
		if err := floorClient(url, os.Getenv(floorSizesEnv), os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "floor client:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// floorClient sends one chat request per size in sizes (comma-separated
// byte counts) to url, one after the other on one connection, each body
// a JSON object of that size prepared before the first, and reads each
// answer to its end: what a client that did nothing but send the
// conversation's bytes would do. It prints its own CPU time in
// nanoseconds before requests 0, 100 and the last (ownCPU).
func floorClient(url, sizes string, out io.Writer) error {
	var ns []int
	for _, f := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(f)
		if err != nil {
			return fmt.Errorf("size %q: %w", f, err)
		}
		ns = append(ns, n)
	}
	body := bytes.Repeat([]byte("x"), slicesMax(ns))
	copy(body, `{"stream":true,"pad":"`)
	var cpu []time.Duration
	for i, n := range ns {
		if i == 0 || i == 100 || i == len(ns)-1 {
			cpu = append(cpu, ownCPU())
		}
		body[n-2], body[n-1] = '"', '}' // a whole JSON object, written in place
		resp, err := http.Post(url+"/v1/chat/completions", "application/json", bytes.NewReader(body[:n]))
		body[n-2], body[n-1] = 'x', 'x'
		if err != nil {
			return err
		}
		_, err = io.Copy(io.Discard, bufio.NewReader(resp.Body))
		_ = resp.Body.Close()
		if err != nil {
			return err
		}
	}
	for _, c := range cpu {
		fmt.Fprintln(out, c.Nanoseconds())
	}
	return nil
}

func slicesMax(ns []int) int {
	m := 0
	for _, n := range ns {
		m = max(m, n)
	}
	return m
}

// sendFloor runs the floor client (floorClient, this test binary) with
// the request sizes of an aidex run against srv and returns its CPU per
// request, in ms, over requests 1–100 and 100–500: what sending the same
// bytes costs with no work of aidex's own.
func sendFloor(tb testing.TB, srv *modelServer, sizes []int64) (early, late float64) {
	f := make([]string, len(sizes))
	for i, n := range sizes {
		f[i] = strconv.FormatInt(max(n, 32), 10)
	}
	srv.reset(len(sizes) - 1)
	srv.call = grepCall
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), floorClientEnv+"="+srv.URL, floorSizesEnv+"="+strings.Join(f, ","))
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("floor client: %v", err)
	}
	var c []float64
	for _, l := range strings.Fields(string(out)) {
		v, _ := strconv.ParseFloat(l, 64)
		c = append(c, v/1e6)
	}
	if len(c) != 3 {
		tb.Fatalf("floor client printed %q", out)
	}
	return (c[1] - c[0]) / 100, (c[2] - c[1]) / float64(len(sizes)-1-100)
}
