// Words the server uses and the client recognises: a failed message whose error starts so was
// refused for the 24-hour window, and the thread offers an approved template right there.
export const WINDOW_CLOSED_PREFIX = 'More than 24 hours have passed since';
