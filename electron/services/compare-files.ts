// Compare across session files (docs/app.md "Compare"): each side is a file and a leaf in it, such as two tries of
// one run (forks of the same original). A file the user has open is read from its open session (up to date with
// what the graph shows); any other is opened for this compare only and closed again. The router has checked both
// paths against the path policy before they reach here.

import * as fs from "node:fs";
import * as path from "node:path";
import type { CompareSideRef, CompareView } from "../../shared/compare";
import { SessionManager } from "../session";
import { compareFilesView } from "./compare";
import { ArborServiceError, toServiceError } from "./errors";

export async function compareFiles(
	openManager: (file: string) => SessionManager | undefined,
	a: CompareSideRef,
	b: CompareSideRef,
	sliceMs?: number,
): Promise<CompareView> {
	const opened: SessionManager[] = [];
	const managerOf = async (ref: CompareSideRef): Promise<SessionManager> => {
		const file = path.resolve(ref.path);
		const own = openManager(file);
		if (own) return own;
		if (!fs.existsSync(file)) throw new ArborServiceError("not_found", `No such file: ${file}`, file);
		try {
			const sm = await SessionManager.openCooperative(file, { sliceMs });
			opened.push(sm);
			return sm;
		} catch (err) {
			throw toServiceError(err);
		}
	};
	try {
		const ma = await managerOf(a);
		const mb = path.resolve(a.path) === path.resolve(b.path) ? ma : await managerOf(b);
		return compareFilesView({ sm: ma, leafId: a.leafId ?? null, file: path.resolve(a.path) }, { sm: mb, leafId: b.leafId ?? null, file: path.resolve(b.path) });
	} finally {
		for (const sm of opened) sm.close();
	}
}
