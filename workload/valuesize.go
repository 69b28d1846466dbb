package workload

import "strconv"

// WithValueSize returns w writing values of size bytes, named after w and
// the size ("ycsb-95-5@1KB", "ycsb-95-5@200B") so that results tell the
// variants apart (karma.txt §6.5 varies the object size of its 95/5 mix).
func (w Workload) WithValueSize(size int) Workload {
	w.Name += "@" + SizeString(size)
	w.ValueSize = size
	return w
}

// SizeString renders a byte count as "200B", "1KB" or "4KB": in KB when it
// is a whole number of kibibytes, else in bytes.
func SizeString(bytes int) string {
	if bytes > 0 && bytes%1024 == 0 {
		return strconv.Itoa(bytes/1024) + "KB"
	}
	return strconv.Itoa(bytes) + "B"
}
