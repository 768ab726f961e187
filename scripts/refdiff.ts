// refdiff.ts: parse every given .3md file with the reference's parser
// (CorvidLabs/agent-3md src/threemd.ts, Bun) and with `agent3md parse
// --json`, and report each file where the two disagree: the document, the
// cross-plane links, or the error's canonical name. Run by
// scripts/refdiff.sh; see there.
//
// Usage: bun refdiff.ts THREEMD_TS AGENT3MD_BIN FILE...
import { readFileSync } from "fs";

const [threemdPath, bin, ...files] = process.argv.slice(2);
if (!threemdPath || !bin || files.length === 0) {
  console.error("usage: bun refdiff.ts THREEMD_TS AGENT3MD_BIN FILE...");
  process.exit(2);
}
const ref = await import(threemdPath);

// The reference's answer in the shape of `agent3md parse --json`.
function reference(src: string): any {
  try {
    const document = ref.parse(src);
    return { document, links: ref.links(document) };
  } catch (e: any) {
    if (e instanceof ref.ParseError) return { error: e.code };
    return { crash: String(e) };
  }
}

function ours(file: string): any {
  const p = Bun.spawnSync([bin, "parse", "--json", file], { stderr: "pipe" });
  const text = p.stdout.toString();
  try {
    const out = JSON.parse(text);
    return "error" in out ? { error: out.error } : out;
  } catch {
    return { crash: `exit ${p.exitCode}: ${p.stderr.toString().slice(0, 300)}` };
  }
}

// firstDifference names the first path where a and b differ, or "".
function firstDifference(a: any, b: any, path: string): string {
  if (a === b) return "";
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) {
    return `${path}: reference ${JSON.stringify(a)?.slice(0, 200)}, ours ${JSON.stringify(b)?.slice(0, 200)}`;
  }
  if (Array.isArray(a) !== Array.isArray(b)) return `${path}: one is a list, the other is not`;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  if (Array.isArray(a) && a.length !== b.length) return `${path}: reference has ${a.length} entries, ours ${b.length}`;
  for (const k of keys) {
    const d = firstDifference(a[k], b[k], `${path}.${k}`);
    if (d) return d;
  }
  return "";
}

let differ = 0, failed = 0;
for (const file of files) {
  const want = reference(readFileSync(file, "utf8"));
  const got = ours(file);
  if (want.error) failed++;
  const d = firstDifference(want, got, "");
  if (d) {
    differ++;
    console.log(`${file}: ${d}`);
  }
}
console.log(`${files.length} files, ${failed} rejected by the reference, ${differ} differ`);
process.exit(differ === 0 ? 0 : 1);
