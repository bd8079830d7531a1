// A bounded memo for a pure function of a string: a Source sends the same token and the same Link
// header with every publish, so their answers (a hash, a parsed header) are worth keeping. When
// `max` answers are held the memo starts afresh, so a flood of distinct keys costs at most `max`
// entries; keys longer than `maxKeyLength` are answered without being kept.

export class RecentAnswers<Answer> {
  private readonly answers = new Map<string, Answer>();

  constructor(
    private readonly compute: (key: string) => Answer,
    private readonly max = 256,
    private readonly maxKeyLength = 4096,
  ) {}

  get(key: string): Answer {
    let answer = this.answers.get(key);
    if (answer === undefined) {
      answer = this.compute(key);
      if (key.length > this.maxKeyLength) return answer;
      if (this.answers.size >= this.max) this.answers.clear();
      this.answers.set(key, answer);
    }
    return answer;
  }

  /** Answers held now. */
  get size(): number {
    return this.answers.size;
  }
}
