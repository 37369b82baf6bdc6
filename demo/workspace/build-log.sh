#!/bin/sh
# A long build log whose one useful field comes last, as in many real logs: 20,000 progress lines
# (about 1.5 MB), a few warnings on stderr, then the release id. A 24 KiB preview keeps the head and
# the tail; everything between is what Tool Output Recall keeps for the model to read back.
i=1
while [ "$i" -le 20000 ]; do
  echo "[build] step $i/20000: compiled src/module_$i.c -> out/module_$i.o (ok)"
  if [ $((i % 5000)) -eq 0 ]; then echo "[build] warning: module_$i.c: unused variable 'tmp_$i'" >&2; fi
  i=$((i + 1))
done
echo "[build] linked 20000 objects"
echo "release_id: R-2718-demo"
