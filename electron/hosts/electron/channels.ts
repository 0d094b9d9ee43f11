// The Electron app's IPC contract: one channel for requests (invoke), one for events (main → window).
// Shared by main and preload; the preload bundles its own copy.

export const REQUEST_CHANNEL = "arbor:request";
export const EVENT_CHANNEL = "arbor:event";
/** Request name the preload uses for a dropped file; the page itself cannot send it (see preload.ts). */
export const DROP_REQUEST = "host:openDroppedFile";
/** The renderer's origin: a privileged custom scheme instead of file://, so 'self' means only the app. */
export const APP_SCHEME = "arbor";
export const APP_ORIGIN = `${APP_SCHEME}://app`;
export const APP_URL = `${APP_ORIGIN}/index.html`;
