// A model endpoint of the test's own for KCS_EMBEDDER=hf: a local HTTP server that answers
// feature-extraction calls with small fixed vectors, and holds every answer until the test
// releases them, so the test acts while a worker waits on the model.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export class HeldModel {
  /** Every text the model was asked to embed, answered or not. */
  readonly texts: string[] = [];
  /** Model calls received, answered or not. */
  calls = 0;
  release: () => void = () => undefined;
  private readonly released = new Promise<void>((resolve) => (this.release = resolve));
  private readonly server: Server;

  private constructor(private readonly dimension: number) {
    this.server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const inputs = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { inputs: string[] }).inputs;
      this.calls++;
      this.texts.push(...inputs);
      await this.released;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(inputs.map((_, i) => Array.from({ length: dimension }, (__, d) => (d === i % dimension ? 1 : 0.1)))));
    });
    // A killed worker's held calls end with its connections.
    this.server.on('clientError', () => undefined);
  }

  static async start(dimension = 4): Promise<HeldModel> {
    const model = new HeldModel(dimension);
    await new Promise<void>((resolve) => model.server.listen(0, '127.0.0.1', resolve));
    return model;
  }

  /** The embedder settings of kcs processes that use this endpoint as the hf model `name`. */
  env(name: string): Record<string, string> {
    return {
      KCS_EMBEDDER: 'hf',
      KCS_HF_MODEL: name,
      KCS_HF_ENDPOINT_URL: `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`,
      KCS_HF_DIMENSION: String(this.dimension),
      KCS_HF_LANGUAGES: 'en',
    };
  }

  async close(): Promise<void> {
    this.release();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
