#!/bin/sh
# pair.sh DRIP LOAD VM ORDER: one pair of the 1,000-stream benchmark of the
# real binary, without and with the exporters, for docs/scale-out.md ("What
# exporting costs"). DRIP is the drip binary, LOAD bench/load's, VM
# VictoriaMetrics' single-node server (integration/tools/victoriametrics
# builds it into ~/.cache/drip/); ORDER is "off on" or "on off".
#
# "on" is --metrics-addr, scraped every second by VictoriaMetrics (--linger
# 2s for the last scrape, after the run), and
# --otlp to the same VictoriaMetrics. Each run is paired at once with the
# fixture server's write times (load -pair forgets them), so the pair's
# runs are alike but for the exporters. Prints each run's load average,
# exit code, records and stamp error.
#
#	go build -o /tmp/drip ./cmd/drip && go build -o /tmp/load ./bench/load
#	bench/exportcost/pair.sh /tmp/drip /tmp/load ~/.cache/drip/victoria-metrics-v1.151.0 "off on"
set -u
drip=$1 load=$2 vm=$3 order=$4
dir=$(mktemp -d)
trap 'kill $serve_pid $vm_pid 2>/dev/null; wait 2>/dev/null; rm -rf "$dir"' EXIT
free() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
maddr=127.0.0.1:$(free)
vaddr=127.0.0.1:$(free)
"$load" -serve > "$dir/url" & serve_pid=$!
printf 'scrape_configs:\n- job_name: drip\n  scrape_interval: 1s\n  static_configs:\n  - targets: ["%s"]\n' "$maddr" > "$dir/scrape.yml"
"$vm" -httpListenAddr="$vaddr" -storageDataPath="$dir/vm" -promscrape.config="$dir/scrape.yml" -search.latencyOffset=0s -loggerLevel=ERROR -retentionPeriod=1d > "$dir/vm.log" 2>&1 & vm_pid=$!
python3 -c 's=[__import__("json").dumps({"id":"s%d"%i,"prompt":"s%d"%i}) for i in range(1000)];open("'"$dir"'/s.jsonl","w").write("\n".join(s)+"\n")'
until curl -sf "http://$vaddr/health" > /dev/null && [ -s "$dir/url" ]; do sleep 0.2; done
sleep 3 # let the start settle
url=$(cat "$dir/url")
for mode in $order; do
  extra=""
  [ "$mode" = on ] && extra="--metrics-addr $maddr --linger 2s --otlp http://$vaddr/opentelemetry"
  echo "== $mode · load $(cut -d' ' -f1-3 /proc/loadavg) at $(date -u +%H:%M:%S)"
  "$drip" run "$url" -m paced --format openai-chat --concurrency 1000 --runs 1000 --prompt-file "$dir/s.jsonl" \
    --out "$dir/$mode.jsonl" --no-tui $extra > /dev/null 2> "$dir/$mode.err"
  echo "exit $? · $(grep -c . "$dir/$mode.jsonl") records · export errors: $(grep -c -- '--otlp:\|--metrics-addr:' "$dir/$mode.err")"
  "$load" -pair "$dir/$mode.jsonl" -server "$url"
done
# The exporters must have delivered while measured: series scraped and pushed.
sleep 2
echo "VictoriaMetrics: scraped drip_streams_total $(curl -s "http://$vaddr/api/v1/query" --data-urlencode 'query=sum(last_over_time(drip_streams_total[10m]))' | grep -o '"value":\[[^]]*\]'), pushed drip.streams $(curl -s "http://$vaddr/api/v1/query" --data-urlencode 'query=sum(last_over_time({__name__="drip.streams"}[10m]))' | grep -o '"value":\[[^]]*\]')"
