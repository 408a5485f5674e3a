/*
Copyright 2026 The fed Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package store

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
	"k8s.io/klog/v2"
)

// Badger maps every file it keeps (tables, value log, memtable logs: z.OpenMmapFile, shared
// and writable) and writes its tables and logs by copying into those mappings. So every
// page it wrote or read stays in the process's RSS until the file is deleted, however
// large the cache: with a million pods, all of the cache's 1 to 2 GiB. They are only page
// cache, which the kernel takes back when memory runs short, but they count as the
// process's memory wherever RSS is looked at. trimMapped hands them back: when the
// process's file-backed RSS exceeds budget, it advises the kernel to page out the cache's
// mappings (MADV_PAGEOUT: clean pages are dropped, dirty ones unmapped and left to
// writeback; what Badger reads again faults back in). The advice never changes what a
// mapping holds, so that a mapping Badger unmaps meanwhile, and memory mapped again at
// its address, come to no harm.
func trimMapped(dir string, budget int64) (trimmed bool, err error) {
	if budget <= 0 || fileRSS() <= budget {
		return false, nil
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	prefix := []byte(dir + "/")
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return false, err
	}
	defer f.Close()
	type span struct{ start, end uint64 }
	var spans []span
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// start-end perms offset dev inode path
		line := sc.Bytes()
		i := bytes.IndexByte(line, '/')
		if i < 0 || !bytes.HasPrefix(line[i:], prefix) {
			continue
		}
		addrs, _, _ := bytes.Cut(line, []byte(" "))
		lo, hi, ok := bytes.Cut(addrs, []byte("-"))
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(string(lo), 16, 64)
		end, err2 := strconv.ParseUint(string(hi), 16, 64)
		if err1 == nil && err2 == nil && end > start {
			spans = append(spans, span{start, end})
		}
	}
	if err := sc.Err(); err != nil {
		return false, err
	}
	for _, s := range spans {
		if _, _, errno := unix.Syscall(unix.SYS_MADVISE, uintptr(s.start), uintptr(s.end-s.start), unix.MADV_PAGEOUT); errno != 0 && errno != unix.ENOMEM {
			// EINVAL: a kernel before 5.4, without MADV_PAGEOUT.
			return false, errno
		}
	}
	return true, nil
}

// fileRSS is the process's RSS of file-backed pages (RssFile), in bytes; 0 when unknown.
func fileRSS() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "RssFile:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func logTrimError(err error) {
	klog.ErrorS(err, "The search cache cannot bound the pages of its mapped files in memory; they stay until the kernel needs them")
}
