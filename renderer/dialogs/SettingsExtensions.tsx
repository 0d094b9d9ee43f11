// Settings ▸ Extensions: the extensions Arbor found (its own folder, --extension, and pi's) and which run.
// Running a pi extension inside Arbor is the user's choice: each of pi's has a checkbox, remembered by the
// main process (setExtensionEnabled accepts only what discovery found). A module that failed to load shows
// its error.

import { useEffect, useState } from "react";
import type { ExtensionInfo, ExtensionListing } from "../../shared/api";
import { useServices } from "../commands/services";
import { errorText } from "../store/dialogs";

const ORIGIN_TEXT: Record<ExtensionInfo["origin"], string> = {
	arbor: "~/.arbor/extensions",
	cli: "--extension",
	pi: "pi's extensions folder",
	"pi-settings": "pi's settings",
	"pi-package": "pi package",
	"pi-project": "this project's .pi",
};

export function ExtensionsSection() {
	const { client } = useServices();
	const [listing, setListing] = useState<ExtensionListing | null>(null);
	const [busy, setBusy] = useState<string | null>(null);
	const [error, setError] = useState<string | null>(null);

	useEffect(() => {
		let live = true;
		client.request("listExtensions", {}).then(
			(l) => live && setListing(l),
			(err: unknown) => live && setError(`Could not list the extensions: ${errorText(err)}`),
		);
		return () => {
			live = false;
		};
	}, [client]);

	const toggle = async (e: ExtensionInfo, enabled: boolean): Promise<void> => {
		setBusy(e.path);
		setError(null);
		try {
			setListing(await client.request("setExtensionEnabled", { path: e.path, enabled }));
		} catch (err) {
			setError(`Could not ${enabled ? "enable" : "disable"} ${e.name}: ${errorText(err)}`);
		} finally {
			setBusy(null);
		}
	};

	return (
		<fieldset data-testid="settings-extensions">
			<legend>Extensions</legend>
			{!listing && !error && (
				<p className="muted">
					<span className="spinner" /> Looking for extensions…
				</p>
			)}
			{listing && listing.extensions.length === 0 && <p className="muted settings-ext-none">No extensions found in ~/.arbor/extensions or pi's folders.</p>}
			{listing && listing.extensions.length > 0 && (
				<ul className="settings-ext-list">
					{listing.extensions.map((e) => {
						const fixed = e.origin === "arbor" || e.origin === "cli";
						const state = !e.enabled ? "off" : e.loaded ? "loaded" : "failed";
						return (
							<li key={e.path} data-testid="settings-extension" data-state={state} title={e.path}>
								<label className="checkbox">
									<input
										type="checkbox"
										checked={e.enabled}
										disabled={fixed || busy !== null}
										aria-label={`Run ${e.name} in Arbor`}
										onChange={(ev) => void toggle(e, ev.target.checked)}
									/>
									<span className="mono">{e.name}</span>
								</label>
								<span className="muted">
									{e.package ?? ORIGIN_TEXT[e.origin]}
									{e.piEnabled === false ? " · off in pi's settings" : ""}
								</span>
								<span className={`settings-ext-state ${state}`}>
									{busy === e.path
										? "…"
										: state === "off"
											? "not running"
											: state === "loaded"
												? e.commands.length > 0
													? e.commands.map((c) => `/${c}`).join(" ")
													: "running"
												: "failed"}
								</span>
								{e.error && <div className="error-text settings-ext-error">{e.error}</div>}
							</li>
						);
					})}
				</ul>
			)}
			{listing?.untrustedProject && (
				<p className="muted settings-ext-missing">
					{listing.untrustedProject}/.pi: pi does not trust this project, so its extensions are not listed (trust it in pi).
				</p>
			)}
			{listing?.missing.map((m) => (
				<p key={m.source} className="muted settings-ext-missing">
					{m.source}: {m.reason}
				</p>
			))}
			<p className="muted settings-ext-none">pi's extensions run inside Arbor only when ticked; they see the session, not your terminal.</p>
			{error && (
				<p className="error-text" role="alert">
					{error}
				</p>
			)}
		</fieldset>
	);
}
