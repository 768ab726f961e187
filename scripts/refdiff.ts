// refdiff.ts: parse every given .3md file with the reference's parser
// (CorvidLabs/agent-3md src/threemd.ts, Bun) and with `agent3md parse
// --json`, and report each file where the two disagree: the document, the
// cross-plane links, or the error's canonical name. Then project every
// file the reference parses with the reference's src/export.ts --bodies
// and with `agent3md export --bodies`, and report where the bytes differ.
// Run by scripts/refdiff.sh; see there.
//
// Usage: bun refdiff.ts REF_CHECKOUT AGENT3MD_BIN FILE...
import { readFileSync } from "fs";

const [refDir, bin, ...files] = process.argv.slice(2);
if (!refDir || !bin || files.length === 0) {
  console.error("usage: bun refdiff.ts REF_CHECKOUT AGENT3MD_BIN FILE...");
  process.exit(2);
}
const ref = await import(`${refDir}/src/threemd.ts`);

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

// exportDifference compares the two agent3md/1 projections of file, byte
// for byte; "" when they agree. A file we refuse because two skills share
// a name (docs/format.md §8; the reference serves one of them) is
// reported as refused, not as a difference.
function exportDifference(file: string): { diff: string; refused: boolean } {
  const want = Bun.spawnSync([process.execPath, `${refDir}/src/export.ts`, file, "--bodies"], { stderr: "pipe" });
  const got = Bun.spawnSync([bin, "export", "--bodies", file], { stderr: "pipe" });
  const err = got.stderr.toString();
  if (got.exitCode !== 0 && err.includes("duplicateSkill")) return { diff: "", refused: true };
  if (want.exitCode !== 0 || got.exitCode !== 0) {
    return { diff: `export exit status: reference ${want.exitCode}, ours ${got.exitCode}: ${err.slice(0, 200)}`, refused: false };
  }
  const a = want.stdout.toString().split("\n"), b = got.stdout.toString().split("\n");
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i]) {
      return { diff: `export line ${i + 1}: reference ${JSON.stringify(a[i] ?? "")?.slice(0, 200)}, ours ${JSON.stringify(b[i] ?? "")?.slice(0, 200)}`, refused: false };
    }
  }
  return { diff: "", refused: false };
}

let differ = 0, failed = 0, refused = 0;
for (const file of files) {
  const want = reference(readFileSync(file, "utf8"));
  const got = ours(file);
  let d = firstDifference(want, got, "");
  if (want.error) failed++;
  else if (!d) {
    const e = exportDifference(file);
    if (e.refused) refused++;
    d = e.diff;
  }
  if (d) {
    differ++;
    console.log(`${file}: ${d}`);
  }
}
console.log(`${files.length} files, ${failed} rejected by the reference, ${refused} refused by us for duplicate skill names, ${differ} differ`);
process.exit(differ === 0 ? 0 : 1);
