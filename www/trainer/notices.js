// What the training worker posts to the page besides replies. Buffers are handed over, not copied.

/** Post `message` to the page, handing over `transfer`. */
export const post = (message, transfer = []) => self.postMessage(message, transfer);
