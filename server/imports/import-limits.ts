/** The largest export taken (server/imports/README.md "History from the phone"): a long chat's photos and voice notes, with room to spare. */
export const MAX_IMPORT_BYTES = 2 * 1024 ** 3;
