#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ring_insns.sh - the instructions libhwtimer executes per timeout armed
# and cancelled through the timer rings, counted by callgrind on
# bench/ring_insns (its workload, against test/fake_kernel.c's stand-in
# kernel).
#
#   ring_insns.sh [-n TIMEOUTS] [-t TOP] PROGRAM OUTDIR VARIANT...
#
# For each VARIANT (sq1024, single, and either -drained), callgrind counts the measured run of
# PROGRAM (--toggle-collect=measured, after its warm-up) into
# OUTDIR/callgrind.ring_insns.VARIANT. Callgrind counts calls where it
# collects no costs too: so it also counts every cost and call of a
# warm-up alone (-w) into OUTDIR/callgrind.ring_insns.VARIANT.warmup, and
# the calls of the measured run are, call site by call site, those of the
# first less those of the second. Then, per timeout:
#
#	total		every instruction of the measured run
#	stand-in	the stand-in kernel's: ioctl(), mmap(), mmap64(),
#			munmap() and what they call
#	workload	the program's own loop and checks
#	library		the rest: libhwtimer and the libc it calls
#
# then the TOP (default 25) functions by self cost, with their inclusive
# cost and their calls, per timeout; and the same self cost by source
# function (addr2line -i), inlined code counted to the function it was
# written in, as -O2 folds most of ring.c into a few symbols.
#
# Under valgrind, clock_gettime() makes the system call instead of running
# the vDSO's code: its few instructions here are not those of a native
# run, where it costs more; its calls per timeout are.
#
# Needs valgrind and binutils' addr2line; nothing else but POSIX sh and awk.
set -e

n=262144
top=25
while getopts n:t: opt; do
	case $opt in
	n) n=$OPTARG ;;
	t) top=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ $# -lt 3 ]; then
	echo "usage: $0 [-n TIMEOUTS] [-t TOP] PROGRAM OUTDIR VARIANT..." >&2
	exit 2
fi
prog=$1
out=$2
shift 2
for tool in valgrind addr2line; do
	if ! command -v $tool >/dev/null; then
		echo "ring_insns.sh: $tool not found" >&2
		exit 1
	fi
done

# An awk function: the value of hex string s ("0x..."), for both programs.
HEXVAL='
function hexval(s,	i, v) {
	v = 0
	s = tolower(substr(s, 3))
	for (i = 1; i <= length(s); i++)
		v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v
}'

# The raw callgrind file, $1, to records (blanks in names become _):
#	T total		the summary
#	S sum		the self costs, which must add up to it
#	F self incl file:function
#	C calls address caller callee	calls made at one call site
#	A address cost	self cost per instruction
parse() {
	awk "$HEXVAL"'
	function hexstr(v,	s, d) {
		s = ""
		do {
			d = v % 16
			s = substr("0123456789abcdef", d + 1, 1) s
			v = (v - d) / 16
		} while (v > 0)
		return "0x" s
	}
	# "(id) name" defines id, "(id)" names it again.
	function unzip(spec, map, kind,	id, rest) {
		if (!match(spec, /^\([0-9]+\)/))
			return spec
		id = substr(spec, 2, RLENGTH - 2)
		rest = substr(spec, RLENGTH + 1)
		sub(/^ /, "", rest)
		if (rest != "")
			map[kind, id] = rest
		return map[kind, id]
	}
	function base(path) {
		sub(/.*\//, "", path)
		return path
	}
	function fnkey(spec, file,	id) {
		match(spec, /^\([0-9]+\)/)
		id = substr(spec, 2, RLENGTH - 2)
		if (!((id) in key)) {
			key[id] = base(file) ":" unzip(spec, names, "fn")
			gsub(/[ \t]/, "_", key[id])
		}
		return key[id]
	}
	/^positions:/ { npos = NF - 1; next }
	/^summary:/ || /^totals:/ { total = $2; next }
	/^fl=/ { file = unzip(substr($0, 4), names, "fl"); next }
	/^(fi|fe)=/ { unzip(substr($0, 4), names, "fl"); next }
	# A callee is in the file of its caller unless cfi= says otherwise.
	/^(cfi|cfl)=/ { cfile = unzip(substr($0, 5), names, "fl"); next }
	/^fn=/ { fn = fnkey(substr($0, 4), file); cfile = ""; next }
	/^cfn=/ {
		cfn = fnkey(substr($0, 5), cfile != "" ? cfile : file)
		cfile = ""
		next
	}
	/^calls=/ {
		split(substr($0, 7), c, " ")
		incall = 1
		next
	}
	/^[0-9+*-]/ {
		p = $1
		if (p ~ /^0x/)
			addr = hexval(p)
		else if (p ~ /^[+-]/)
			addr += p + 0
		else if (p != "*")
			addr = p + 0
		cost = NF > npos ? $(npos + 1) + 0 : 0
		if (incall) {
			callcost[fn] += cost
			site[sprintf("%s %s %s", hexstr(addr), fn, cfn)] += c[1]
			incall = 0
		} else {
			self[fn] += cost
			seen[fn] = 1
			sum += cost
			if (npos > 1)
				at[sprintf("%.0f", addr)] += cost
		}
		next
	}
	END {
		printf "T %.0f\nS %.0f\n", total, sum
		for (f in seen)
			printf "F %.0f %.0f %s\n", self[f],
			       self[f] + callcost[f], f
		for (s in site)
			printf "C %.0f %s\n", site[s], s
		for (a in at)
			printf "A %s %.0f\n", hexstr(a), at[a]
	}' "$1"
}

# Callgrind on PROGRAM, into $1, with the options $2...
callgrind() {
	f=$1
	shift
	valgrind -q --tool=callgrind --dump-instr=yes \
		--callgrind-out-file="$f" "$@"
}

for v in "$@"; do
	cg=$out/callgrind.ring_insns.$v
	rec=$cg.records
	res=$(callgrind "$cg" --collect-atstart=no --toggle-collect=measured \
		"$prog" -n "$n" -v "$v")
	callgrind "$cg.warmup" "$prog" -n "$n" -v "$v" -w >/dev/null
	# "VARIANT timeouts N enters E entries S nops P"
	timeouts=$(echo "$res" | awk '{ print $3 }')
	# The warm-up's call sites, then the run's records; F gets the calls
	# of the function: F self incl calls file:function.
	{ parse "$cg.warmup" | sed -n 's/^C /W /p'; parse "$cg"; } |
		awk '
		$1 == "W" { warm[$3 " " $4 " " $5] = $2; next }
		$1 == "C" { calls[$5] += $2 - warm[$3 " " $4 " " $5]; next }
		$1 == "F" { f[$4] = $2 " " $3; next }
		{ print }
		END {
			for (k in f)
				printf "F %s %.0f %s\n", f[k], calls[k], k
		}' >"$rec"
	echo "== $res ($cg)"
	awk -v n="$timeouts" '
	$1 == "T" { total = $2 }
	$1 == "S" { sum = $2 }
	$1 == "F" {
		split($5, fl, ":")
		if (fl[1] == "fake_kernel.c" &&
		    fl[2] ~ /^(ioctl|mmap|mmap64|munmap)$/)
			fake += $3
		else if (fl[1] == "ring_insns.c")
			work += $2
	}
	END {
		if (!total || sum != total) {
			printf "ring_insns.sh: self costs %.0f, total %.0f\n",
			       sum, total > "/dev/stderr"
			exit 1
		}
		printf "instructions per timeout (an arm and a cancel):\n"
		printf "%10.1f  total, the measured run\n", total / n
		printf "%10.1f  stand-in kernel (ioctl, mmap, munmap)\n",
		       fake / n
		printf "%10.1f  workload (the program'"'"'s loop and checks)\n",
		       work / n
		printf "%10.1f  libhwtimer, with the libc it calls\n",
		       (total - fake - work) / n
	}' "$rec"
	echo
	echo "by function (symbol), per timeout:"
	printf '%10s %10s %8s  %s\n' self inclusive calls function
	awk '$1 == "F" { print $2, $3, $4, $5 }' "$rec" | sort -k1,1nr -k4 |
		head -n "$top" |
		awk -v n="$timeouts" '{
			printf "%10.1f %10.1f %8.3f  %s\n", $1 / n, $2 / n,
			       $3 / n, $4
		}'
	echo
	echo "by source function (inlined code to its own), per timeout:"
	printf '%10s  %s\n' self function
	awk '$1 == "A" { print $2 }' "$rec" |
		addr2line -a -f -i -e "$prog" |
		awk -v n="$timeouts" "$HEXVAL"'
		FNR == NR {
			if ($1 == "A")
				cost[sprintf("%.0f", hexval($2))] = $3
			next
		}
		# An address, then pairs of lines: function, file:line,
		# innermost first.
		/^0x[0-9a-f]+$/ { a = sprintf("%.0f", hexval($1)); k = 0; next }
		{
			k++
			if (k == 1)
				f = $0
			if (k != 2)
				next
			file = $0
			sub(/:[0-9?]+( .*)?$/, "", file)
			sub(/.*\//, "", file)
			self[file ":" f] += cost[a]
		}
		END {
			for (f in self)
				printf "%.0f %s\n", self[f], f
		}' "$rec" - | sort -k1,1nr -k2 | head -n "$top" |
		awk -v n="$timeouts" '{ printf "%10.1f  %s\n", $1 / n, $2 }'
	echo
done
