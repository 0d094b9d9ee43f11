// When the user's browser host may stop by itself: no page has been connected and no live pi has held one of
// its sessions for `idleMs` (docs/hosts.md "One host per user"). Checked a few times per period, so the host
// stops between idleMs and idleMs + a quarter of it after its last use.

export interface IdleWatch {
	stop(): void;
}

export function watchIdle(idleMs: number, busy: () => Promise<boolean> | boolean, onIdle: () => void): IdleWatch {
	let lastUsed = Date.now();
	let checking = false;
	const timer = setInterval(
		() => {
			if (checking) return;
			checking = true;
			void Promise.resolve()
				.then(busy)
				.catch(() => true)
				.then((inUse) => {
					checking = false;
					if (inUse) lastUsed = Date.now();
					else if (Date.now() - lastUsed >= idleMs) {
						clearInterval(timer);
						onIdle();
					}
				});
		},
		Math.max(20, Math.min(30_000, idleMs / 4)),
	);
	timer.unref();
	return { stop: () => clearInterval(timer) };
}
