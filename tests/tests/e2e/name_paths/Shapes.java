package demo.shapes;

import java.util.ArrayList;
import java.util.List;

public class Shapes {
    private final List<Shape> items = new ArrayList<>();
    static final int LIMIT = 10;

    public Shapes() {
        this(LIMIT);
    }

    public Shapes(int capacity) {
        if (capacity < 0) {
            throw new IllegalArgumentException("capacity");
        }
    }

    public interface Shape {
        double area();

        default String describe(String prefix) {
            return prefix + " " + area();
        }
    }

    public static abstract class Base implements Shape {
        protected abstract double size();

        @Override
        public double area() {
            return size() * size();
        }
    }

    public record Point(int x, int y) {
        public Point {
            if (x < 0) throw new IllegalArgumentException();
        }

        public int sum() {
            return x + y;
        }
    }

    public enum Kind {
        ROUND, SQUARE;

        public boolean isRound() {
            return this == ROUND;
        }
    }

    @SuppressWarnings("unchecked")
    public <T extends Shape> T add(T shape) {
        items.add(shape);
        return shape;
    }

    public double total() {
        double sum = 0;
        for (Shape s : items) {
            sum += s.area();
        }
        return sum;
    }

    public double total(Kind kind) {
        return kind == Kind.ROUND ? total() : 0;
    }
}
