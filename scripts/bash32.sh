#!/usr/bin/env bash
# Builds GNU bash 3.2.57, the bash macOS ships, from Apple's sources
# (https://github.com/apple-oss-distributions/bash, folder bash-3.2), on
# Linux, for testing the scripts a macOS home machine runs:
#
#   scripts/bash32.sh SRC_DIR OUT_DIR      # SRC_DIR: the checkout's bash-3.2 folder
#   MANETLAB_BASH32=OUT_DIR/bash go test ./testbed -run TestVagrantRunScript
#
# Needs gcc, make and bison. Apple's tree is patched for Linux in a copy:
# EBADEXEC and xlocale.h are Darwin's, fmtcheck(3) is BSD's.
set -euo pipefail
src=${1:?usage: scripts/bash32.sh SRC_DIR OUT_DIR}
out=${2:?usage: scripts/bash32.sh SRC_DIR OUT_DIR}
[ -f "$src/parse.y" ] || { echo "bash32.sh: $src is not the bash-3.2 source folder (no parse.y)" >&2; exit 1; }
for c in gcc make bison; do
	command -v "$c" >/dev/null || { echo "bash32.sh: needs $c" >&2; exit 1; }
done
mkdir -p "$out"
cp -pR "$src/." "$out/"
cd "$out"
sed -i 's/i != ENOEXEC \&\& i != EBADEXEC/i != ENOEXEC/' execute_cmd.c
grep -rl "xlocale.h" --include=*.c --include=*.h . | xargs -r sed -i 's/#include <xlocale.h>/#include <locale.h>/'
printf '#include <stddef.h>\nconst char *fmtcheck(const char *f, const char *d) { return f; }\n' > fmtcheck.c
gcc -c -O1 -o fmtcheck.o fmtcheck.c
CFLAGS="-O1 -w -std=gnu99" ./configure --without-bash-malloc --disable-nls >configure.log
make -j"$(nproc)" YACC="bison -y" CFLAGS="-O1 -w -std=gnu99" LOCAL_LIBS=fmtcheck.o >make.log
./bash --version | head -1
