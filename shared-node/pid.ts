// Whether a pid is a live process of this user. Imports nothing but Node: a test runs it bundled as another user.

/**
 * True when `pid` is alive and ours to signal. EPERM (the pid exists but belongs to another user) counts as
 * gone: a registration of ours never names another user's process, so that pid was reused after our pi died
 * and the registration is stale (treating it as alive once let another user pose as the user's pi).
 */
export function pidAlive(pid: number): boolean {
	if (!Number.isInteger(pid) || pid <= 0) return false;
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}
