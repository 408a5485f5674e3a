# Reads `go test -bench` output holding BenchmarkX and BenchmarkEtcd3X pairs, prints it, then
# a table of how many times faster Badger is than etcd3 for each pair (etcd3 ns/op / Badger ns/op).
{ print }
/^Benchmark/ {
	name = $1; sub(/-[0-9]+$/, "", name); sub(/^Benchmark/, "", name)
	for (i = 2; i <= NF; i++) if ($(i+1) == "ns/op") ns[name] = $i
}
END {
	printf "\n%-22s %14s %14s %8s\n", "storage benchmark", "badger ns/op", "etcd3 ns/op", "ratio"
	for (n in ns) {
		if (n ~ /^Etcd3/) continue
		e = "Etcd3" n
		if (e in ns) printf "%-22s %14d %14d %7.1fx\n", n, ns[n], ns[e], ns[e] / ns[n]
	}
}
