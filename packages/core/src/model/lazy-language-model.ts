import type { LanguageModelV3, LanguageModelV3CallOptions } from "@ai-sdk/provider";

/**
 * A provider model whose SDK is imported on the first request, not when the model is created:
 * the AI SDK providers cost tens of milliseconds and megabytes to load, and `createModel` runs in
 * every command that resolves a configuration, most of which never send a request.
 */
export class LazyLanguageModel implements LanguageModelV3 {
  readonly specificationVersion = "v3";
  #model: Promise<LanguageModelV3> | undefined;

  constructor(
    readonly provider: string,
    readonly modelId: string,
    private readonly load: () => Promise<LanguageModelV3>,
  ) {}

  get supportedUrls(): PromiseLike<Record<string, RegExp[]>> {
    return this.model().then((model) => model.supportedUrls);
  }

  async doGenerate(options: LanguageModelV3CallOptions) {
    return (await this.model()).doGenerate(options);
  }

  async doStream(options: LanguageModelV3CallOptions) {
    return (await this.model()).doStream(options);
  }

  private model(): Promise<LanguageModelV3> {
    this.#model ??= this.load().catch((error: unknown) => {
      this.#model = undefined; // a later request tries again
      throw error;
    });
    return this.#model;
  }
}
