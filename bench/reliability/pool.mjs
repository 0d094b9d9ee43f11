// A small pool of forked worker processes, one job at a time each, with a per-job time bound. A job that
// overruns its bound is a hang: its process is killed with SIGKILL and replaced. A process that dies
// mid-job (uncaught exception, out of memory, stack overflow in native code) is a crash. Neither stops
// the run: both are counted.
import { fork } from "node:child_process";

export async function runPool({ script, jobs, size = 2, timeoutMs, execArgv = [], env = {}, onResult }) {
	let next = 0;
	const spawnWorker = () =>
		new Promise((resolve, reject) => {
			const child = fork(script, [], { execArgv, env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "pipe", "ipc"] });
			let stderr = "";
			child.stderr.on("data", (d) => {
				stderr = (stderr + d.toString()).slice(-4000);
			});
			child.stderrTail = () => stderr;
			const onMsg = (m) => {
				if (m && m.ready) {
					child.off("message", onMsg);
					child.off("exit", onEarlyExit);
					resolve(child);
				}
			};
			const onEarlyExit = (code) => reject(new Error(`worker exited at start (${code}): ${stderr}`));
			child.on("message", onMsg);
			child.on("exit", onEarlyExit);
		});

	const runOne = (child, job) =>
		new Promise((resolve) => {
			const limit = typeof timeoutMs === "function" ? timeoutMs(job) : timeoutMs;
			let done = false;
			const finish = (outcome) => {
				if (done) return;
				done = true;
				clearTimeout(timer);
				child.off("message", onMsg);
				child.off("exit", onExit);
				resolve(outcome);
			};
			const onMsg = (m) => finish({ kind: "result", result: m });
			const onExit = (code, signal) => finish({ kind: "died", detail: `process died (${signal ?? code}): ${child.stderrTail().slice(-800)}` });
			const timer = setTimeout(() => {
				child.kill("SIGKILL");
				finish({ kind: "hang", detail: `no answer within ${limit} ms` });
			}, limit);
			child.on("message", onMsg);
			child.on("exit", onExit);
			child.send(job);
		});

	const lane = async () => {
		let child = await spawnWorker();
		while (next < jobs.length) {
			const job = jobs[next++];
			const outcome = await runOne(child, job);
			onResult(job, outcome);
			if (outcome.kind !== "result") {
				if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
				child = await spawnWorker();
			}
		}
		child.kill();
	};
	await Promise.all(Array.from({ length: Math.min(size, jobs.length) }, lane));
}
