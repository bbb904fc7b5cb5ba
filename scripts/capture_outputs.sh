#!/bin/bash
# Capture every command's output on samples/ and docs/examples into OUTDIR, so that a
# refactoring can be checked byte for byte: run it before and after, then `diff -r`.
#   scripts/capture_outputs.sh /tmp/before   (uses the `prefixlint` on PATH)
set -u
OUT=$(realpath -m "$1"); rm -rf "$OUT"; mkdir -p "$OUT"
export NO_COLOR=1 HF_HUB_OFFLINE=1
cd "$(dirname "$0")/.."
run() { name=$1; shift; "$@" >"$OUT"/$name.out 2>"$OUT"/$name.err; echo $? >"$OUT"/$name.rc; }
run check_text prefixlint check samples/
run check_json prefixlint check samples/ --format json
run check_sarif prefixlint check samples/ --format sarif
run check_github prefixlint check samples/ --format github
run compare prefixlint compare samples/daily_briefing.txt samples/translate_short.txt
run compare_json prefixlint compare samples/daily_briefing.txt samples/translate_short.txt --format json
run compare_text prefixlint compare --text "What's your refund policy?" --text "What is your refund policy?"
run transcript prefixlint transcript samples/research_agent_chat.yaml
run transcript_json prefixlint transcript samples/research_agent_chat.yaml --format json
run transcript_harmony prefixlint transcript samples/research_agent_chat.yaml -t o200k_harmony
run replay prefixlint replay docs/examples/traffic.jsonl
run replay_json prefixlint replay docs/examples/traffic.jsonl --format json
run replay_mem prefixlint replay docs/examples/traffic.jsonl --memory 71GiB --model-config docs/examples/gpt-oss-120b-config.json -t o200k_harmony
run kv prefixlint kv docs/examples/gpt-oss-120b-config.json --memory 71GiB
run kv_json prefixlint kv docs/examples/gpt-oss-120b-config.json --naive --context 4K,32K --context 100000 --format json
run rules prefixlint rules
run rule prefixlint rule PFX001
run rule7 prefixlint rule PFX007
run help prefixlint --help
for c in check compare rules rule replay kv transcript report; do run help_$c prefixlint $c --help; done
# report in a throwaway git repo: base = samples as committed, head = one edit
export GIT_AUTHOR_DATE=2026-01-01T00:00:00Z GIT_COMMITTER_DATE=2026-01-01T00:00:00Z
R=$(mktemp -d); cp -r samples $R/; cd $R
git init -q -b main . && git add -A && git -c user.email=a@b -c user.name=a commit -qm base
sed -i 's/Today is/Today, /' samples/research_agent_chat.yaml
echo "extra line {{ now }}" >> samples/daily_briefing.txt
run report prefixlint report --base main
run report_subset prefixlint report --base main $(git ls-files | grep -v chat_template_dated)
run report_annot prefixlint report --base main --annotate --fail-on findings,drop:1 samples/research_agent_chat.yaml samples/daily_briefing.txt
cd /; rm -rf $R
