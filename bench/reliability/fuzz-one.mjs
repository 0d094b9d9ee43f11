// Debug helper: run the fuzz worker on one file and print its full result.
//   node bench/reliability/fuzz-one.mjs FILE [seed]   (after one `npm run test:reliability` built the workers)
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { buildWorkers, workerPath } from "./build.mjs";
import { forkWorker } from "./util.mjs";

const workers = await buildWorkers();
const w = await forkWorker(workerPath(workers, "fuzz-worker"), { env: { ARBOR_FUZZ_KEEP: "1" } });
const workDir = join(mkdtempSync(join(tmpdir(), "arbor-fuzz-one-")), "w");
console.log(`work dir: ${workDir}`);
w.child.send({ file: resolve(process.argv[2]), workDir, seed: process.argv[3] ?? "1" });
const res = await new Promise((ok) => w.child.once("message", ok));
console.log(JSON.stringify(res, null, 2));
w.kill();
