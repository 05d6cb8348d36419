package verify

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The harness tells which relay process sent a request by the facts of
// the machine, not by what the relay says of itself (its client id):
// the peer's TCP port leads to a socket inode (/proc/net/tcp), the inode to
// the process that holds it (/proc/PID/fd). Linux only, as the real parts
// are.

// tcpSockets returns the rows of the kernel's TCP socket tables, split
// into fields: local address, remote address, …, inode (the 10th).
func tcpSockets() [][]string {
	var out [][]string
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		data, err := os.ReadFile(table)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			if fields := strings.Fields(line); len(fields) >= 10 {
				out = append(out, fields)
			}
		}
	}
	return out
}

// socketInode returns the inode of the established loopback TCP socket
// from local port local to remote port remote (a closed socket of an
// earlier connection may have had the same local port; it has no inode).
func socketInode(local, remote int) (uint64, error) {
	wantLocal, wantRemote := fmt.Sprintf(":%04X", local), fmt.Sprintf(":%04X", remote)
	for _, fields := range tcpSockets() {
		if !strings.HasSuffix(fields[1], wantLocal) || !strings.HasSuffix(fields[2], wantRemote) {
			continue
		}
		if inode, err := strconv.ParseUint(fields[9], 10, 64); err == nil && inode != 0 {
			return inode, nil
		}
	}
	return 0, fmt.Errorf("verify: no TCP socket from port %d to port %d", local, remote)
}

// localPorts returns the local ports of the TCP sockets pid holds.
func localPorts(pid int) []int {
	inodes := map[uint64]bool{}
	fds, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", pid))
	for _, fd := range fds {
		link, err := os.Readlink(fd)
		if err == nil && strings.HasPrefix(link, "socket:[") {
			n, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]"), 10, 64)
			inodes[n] = true
		}
	}
	var ports []int
	for _, fields := range tcpSockets() {
		inode, _ := strconv.ParseUint(fields[9], 10, 64)
		if !inodes[inode] {
			continue
		}
		_, hexPort, _ := strings.Cut(fields[1], ":")
		if p, err := strconv.ParseUint(hexPort, 16, 32); err == nil {
			ports = append(ports, int(p))
		}
	}
	return ports
}

// holds reports whether pid has the socket inode open.
func holds(pid int, inode uint64) bool {
	want := fmt.Sprintf("socket:[%d]", inode)
	fds, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", pid))
	for _, fd := range fds {
		if link, err := os.Readlink(fd); err == nil && link == want {
			return true
		}
	}
	return false
}

// group returns the processes of process group pgid: a relay started as
// "sh -c CMD" may run as sh's child, a Java relay as several.
func group(pgid int) []int {
	var out []int
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, s := range stats {
		data, err := os.ReadFile(s)
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp …: comm may hold spaces and parentheses.
		rest := string(data)
		if i := strings.LastIndexByte(rest, ')'); i >= 0 {
			rest = rest[i+1:]
		}
		fields := strings.Fields(rest)
		if len(fields) > 2 && fields[2] == strconv.Itoa(pgid) {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(s)))
			out = append(out, pid)
		}
	}
	return out
}
