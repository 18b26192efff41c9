/** Base of every contract error: `code` is stable and compared; `message` is for people. */
export class HanzoError extends Error {
  /**
   * @param {string} code
   * @param {string} message
   */
  constructor(code, message) {
    super(message);
    this.name = new.target.name;
    /** @type {string} */
    this.code = code;
  }
}
