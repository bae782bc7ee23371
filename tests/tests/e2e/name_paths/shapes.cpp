#include <ostream>
#include <string>
#include <vector>

namespace geo {

struct Point {
    double x = 0;
    double y = 0;
};

class Shape {
public:
    virtual ~Shape() = default;
    virtual double area() const = 0;
    std::string describe(const std::string& prefix) const {
        return prefix + " shape";
    }
};

class Circle : public Shape {
public:
    explicit Circle(double r);
    Circle(const Circle& other) : r_(other.r_) {}
    ~Circle() override;
    double area() const override;
    Circle& operator/(double by);
    friend std::ostream& operator<<(std::ostream& out, const Circle& c);
    template <typename T>
    T scaled(T by) const {
        return static_cast<T>(r_ * by);
    }

private:
    double r_;
};

Circle::Circle(double r) : r_(r) {}

Circle::~Circle() {}

double Circle::area() const {
    return 3.14159 * r_ * r_;
}

Circle& Circle::operator/(double by) {
    r_ /= by;
    return *this;
}

std::ostream& operator<<(std::ostream& out, const Circle& c) {
    return out << "circle " << c.r_;
}

double total(const std::vector<Shape*>& shapes);

double total(const std::vector<Shape*>& shapes) {
    double sum = 0;
    for (const Shape* s : shapes) {
        sum += s->area();
    }
    return sum;
}

int total(int a, int b) {
    return a + b;
}

}  // namespace geo

template <typename T>
T twice(T v) {
    return v + v;
}

int main() {
    geo::Circle c(2.0);
    return static_cast<int>(geo::total({&c})) + twice(1);
}
