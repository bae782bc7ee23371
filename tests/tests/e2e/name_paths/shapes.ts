import { EventEmitter } from "events";

export interface Shape {
  area(): number;
  describe(prefix: string): string;
}

function logged(target: unknown, key: string): void {}

export abstract class Base implements Shape {
  protected constructor(public readonly name: string) {}

  abstract area(): number;

  describe(prefix: string): string {
    return `${prefix} ${this.name}`;
  }
}

export class Circle extends Base {
  private r = 0;
  static count = 0;

  constructor(r: number) {
    super("circle");
    this.r = r;
    Circle.count++;
  }

  get radius(): number {
    return this.r;
  }

  set radius(value: number) {
    this.r = value;
  }

  area(): number {
    return Math.PI * this.r * this.r;
  }

  scale(by: number): Circle;
  scale(by: string): Circle;
  scale(by: number | string): Circle {
    return new Circle(this.r * Number(by));
  }

  @logged
  async load<T extends object>(
    source: Promise<T>,
    fallback: T,
  ): Promise<T> {
    return (await source) ?? fallback;
  }

  onChange = (e: { value: number }): void => {
    this.r = e.value;
  };

  static unit(): Circle {
    return new Circle(1);
  }
}

export function total(shapes: Shape[]): number {
  return shapes.reduce((sum, s) => sum + s.area(), 0);
}

export const largest = (shapes: Shape[]): Shape | undefined => {
  return [...shapes].sort((a, b) => b.area() - a.area())[0];
};

export namespace Geometry {
  export function origin(): [number, number] {
    return [0, 0];
  }
}

export default class Registry extends EventEmitter {
  private items = new Map<string, Shape>();

  add(key: string, shape: Shape): this {
    this.items.set(key, shape);
    return this;
  }
}
