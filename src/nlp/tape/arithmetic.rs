//! [`TapeVar`] as a number: the operators, the `num-traits` traits and `num-dual`'s [`DualNum`],
//! each operation recorded on the tape with its first and second partial derivatives.

use super::*;

impl Neg for TapeVar {
    type Output = Self;
    fn neg(self) -> Self {
        self.unary(-self.value, -1.0, 0.0)
    }
}

macro_rules! binary_ops {
    ($rhs:ty, $to_var:expr) => {
        impl Add<$rhs> for TapeVar {
            type Output = Self;
            fn add(self, o: $rhs) -> Self {
                let o: TapeVar = $to_var(o);
                self.binary(o, self.value + o.value, 1.0, 1.0, 0.0, 0.0, 0.0)
            }
        }
        impl Sub<$rhs> for TapeVar {
            type Output = Self;
            fn sub(self, o: $rhs) -> Self {
                let o: TapeVar = $to_var(o);
                self.binary(o, self.value - o.value, 1.0, -1.0, 0.0, 0.0, 0.0)
            }
        }
        impl Mul<$rhs> for TapeVar {
            type Output = Self;
            fn mul(self, o: $rhs) -> Self {
                self.mul_var($to_var(o))
            }
        }
        impl Div<$rhs> for TapeVar {
            type Output = Self;
            fn div(self, o: $rhs) -> Self {
                self.div_var($to_var(o))
            }
        }
        impl Rem<$rhs> for TapeVar {
            type Output = Self;
            fn rem(self, o: $rhs) -> Self {
                let o: TapeVar = $to_var(o);
                let q = (self.value / o.value).trunc();
                self.binary(o, self.value % o.value, 1.0, -q, 0.0, 0.0, 0.0)
            }
        }
        impl AddAssign<$rhs> for TapeVar {
            fn add_assign(&mut self, o: $rhs) {
                *self = *self + o;
            }
        }
        impl SubAssign<$rhs> for TapeVar {
            fn sub_assign(&mut self, o: $rhs) {
                *self = *self - o;
            }
        }
        impl MulAssign<$rhs> for TapeVar {
            fn mul_assign(&mut self, o: $rhs) {
                *self = *self * o;
            }
        }
        impl DivAssign<$rhs> for TapeVar {
            fn div_assign(&mut self, o: $rhs) {
                *self = *self / o;
            }
        }
        impl RemAssign<$rhs> for TapeVar {
            fn rem_assign(&mut self, o: $rhs) {
                *self = *self % o;
            }
        }
    };
}

binary_ops!(TapeVar, |o: TapeVar| o);
binary_ops!(&TapeVar, |o: &TapeVar| *o);
binary_ops!(f64, TapeVar::constant);

impl Inv for TapeVar {
    type Output = Self;
    fn inv(self) -> Self {
        self.recip()
    }
}

impl Sum for TapeVar {
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Self::zero(), |a, b| a + b)
    }
}

impl Product for TapeVar {
    fn product<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Self::one(), |a, b| a * b)
    }
}

impl Zero for TapeVar {
    fn zero() -> Self {
        Self::constant(0.0)
    }
    fn is_zero(&self) -> bool {
        self.value == 0.0
    }
}

impl One for TapeVar {
    fn one() -> Self {
        Self::constant(1.0)
    }
}

impl Num for TapeVar {
    type FromStrRadixErr = <f64 as Num>::FromStrRadixErr;
    fn from_str_radix(s: &str, radix: u32) -> Result<Self, Self::FromStrRadixErr> {
        f64::from_str_radix(s, radix).map(Self::constant)
    }
}

impl Signed for TapeVar {
    fn abs(&self) -> Self {
        if self.value < 0.0 { -*self } else { *self }
    }
    fn abs_sub(&self, other: &Self) -> Self {
        if self.value > other.value {
            *self - *other
        } else {
            Self::zero()
        }
    }
    fn signum(&self) -> Self {
        Self::constant(self.value.signum())
    }
    fn is_positive(&self) -> bool {
        self.value.is_sign_positive()
    }
    fn is_negative(&self) -> bool {
        self.value.is_sign_negative()
    }
}

impl FromPrimitive for TapeVar {
    fn from_i64(n: i64) -> Option<Self> {
        Some(Self::constant(n as f64))
    }
    fn from_u64(n: u64) -> Option<Self> {
        Some(Self::constant(n as f64))
    }
    fn from_f64(n: f64) -> Option<Self> {
        Some(Self::constant(n))
    }
}

impl From<f64> for TapeVar {
    fn from(value: f64) -> Self {
        Self::constant(value)
    }
}

impl PartialEq for TapeVar {
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}

impl PartialOrd for TapeVar {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        self.value.partial_cmp(&other.value)
    }
}

impl PartialEq<f64> for TapeVar {
    fn eq(&self, other: &f64) -> bool {
        self.value == *other
    }
}

impl PartialOrd<f64> for TapeVar {
    fn partial_cmp(&self, other: &f64) -> Option<std::cmp::Ordering> {
        self.value.partial_cmp(other)
    }
}

impl fmt::Display for TapeVar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.value)
    }
}

impl fmt::Debug for TapeVar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TapeVar({} @{})", self.value, self.node)
    }
}

impl DualStruct for TapeVar {
    type Real = f64;
    type Inner = f64;
    fn re(&self) -> f64 {
        self.value
    }
    fn from_inner(inner: &f64) -> Self {
        Self::constant(*inner)
    }
}

impl Mappable<TapeVar> for TapeVar {
    type Output<O> = O;
    fn map_dual<M: Fn(TapeVar) -> O, O>(self, f: M) -> O {
        f(self)
    }
}

impl DualNum for TapeVar {
    type Primitive = f64;
    const NDERIV: usize = 2;
    type InnerDual = f64;

    fn from_re(re: f64) -> Self {
        Self::constant(re)
    }
    fn scale(self, factor: &f64) -> Self {
        self * *factor
    }
    fn recip(&self) -> Self {
        let r = 1.0 / self.value;
        self.unary(r, -r * r, 2.0 * r * r * r)
    }
    fn powi(&self, n: i32) -> Self {
        match n {
            0 => Self::one(),
            1 => *self,
            2 => self.mul_var(*self),
            _ => {
                let x = self.value;
                let nf = n as f64;
                let p2 = x.powi(n - 2);
                self.unary(p2 * x * x, nf * p2 * x, nf * (nf - 1.0) * p2)
            }
        }
    }
    fn powf(&self, n: f64) -> Self {
        if n == 0.0 {
            return Self::one();
        }
        let x = self.value;
        let p2 = x.powf(n - 2.0);
        self.unary(x.powf(n), n * x.powf(n - 1.0), n * (n - 1.0) * p2)
    }
    fn sqrt(&self) -> Self {
        let s = self.value.sqrt();
        self.unary(s, 0.5 / s, -0.25 / (s * self.value))
    }
    fn cbrt(&self) -> Self {
        let c = self.value.cbrt();
        let d = c / (3.0 * self.value);
        self.unary(c, d, -2.0 * d / (3.0 * self.value))
    }
    fn exp(&self) -> Self {
        let e = self.value.exp();
        self.unary(e, e, e)
    }
    fn exp2(&self) -> Self {
        let e = self.value.exp2();
        let l = std::f64::consts::LN_2;
        self.unary(e, e * l, e * l * l)
    }
    fn exp_m1(&self) -> Self {
        let e = self.value.exp();
        self.unary(self.value.exp_m1(), e, e)
    }
    fn ln(&self) -> Self {
        let r = 1.0 / self.value;
        self.unary(self.value.ln(), r, -r * r)
    }
    fn log(&self, base: f64) -> Self {
        let r = 1.0 / (self.value * base.ln());
        self.unary(self.value.log(base), r, -r / self.value)
    }
    fn log2(&self) -> Self {
        self.log(2.0)
    }
    fn log10(&self) -> Self {
        self.log(10.0)
    }
    fn ln_1p(&self) -> Self {
        let r = 1.0 / (1.0 + self.value);
        self.unary(self.value.ln_1p(), r, -r * r)
    }
    fn sin(&self) -> Self {
        let (s, c) = self.value.sin_cos();
        self.unary(s, c, -s)
    }
    fn cos(&self) -> Self {
        let (s, c) = self.value.sin_cos();
        self.unary(c, -s, -c)
    }
    fn tan(&self) -> Self {
        let t = self.value.tan();
        let d = 1.0 + t * t;
        self.unary(t, d, 2.0 * t * d)
    }
    fn sin_cos(&self) -> (Self, Self) {
        (self.sin(), self.cos())
    }
    fn asin(&self) -> Self {
        let x = self.value;
        let r = 1.0 / (1.0 - x * x).sqrt();
        self.unary(x.asin(), r, x * r * r * r)
    }
    fn acos(&self) -> Self {
        let x = self.value;
        let r = 1.0 / (1.0 - x * x).sqrt();
        self.unary(x.acos(), -r, -x * r * r * r)
    }
    fn atan(&self) -> Self {
        let x = self.value;
        let r = 1.0 / (1.0 + x * x);
        self.unary(x.atan(), r, -2.0 * x * r * r)
    }
    fn atan2(&self, other: Self) -> Self {
        // self = y, other = x.
        let (y, x) = (self.value, other.value);
        let r2 = x * x + y * y;
        let q = 1.0 / (r2 * r2);
        self.binary(
            other,
            y.atan2(x),
            x / r2,
            -y / r2,
            -2.0 * x * y * q,
            (y * y - x * x) * q,
            2.0 * x * y * q,
        )
    }
    fn sinh(&self) -> Self {
        let (s, c) = (self.value.sinh(), self.value.cosh());
        self.unary(s, c, s)
    }
    fn cosh(&self) -> Self {
        let (s, c) = (self.value.sinh(), self.value.cosh());
        self.unary(c, s, c)
    }
    fn tanh(&self) -> Self {
        let t = self.value.tanh();
        let d = 1.0 - t * t;
        self.unary(t, d, -2.0 * t * d)
    }
    fn asinh(&self) -> Self {
        let x = self.value;
        let r = 1.0 / (x * x + 1.0).sqrt();
        self.unary(x.asinh(), r, -x * r * r * r)
    }
    fn acosh(&self) -> Self {
        let x = self.value;
        let r = 1.0 / (x * x - 1.0).sqrt();
        self.unary(x.acosh(), r, -x * r * r * r)
    }
    fn atanh(&self) -> Self {
        let x = self.value;
        let r = 1.0 / (1.0 - x * x);
        self.unary(x.atanh(), r, 2.0 * x * r * r)
    }
    fn sph_j0(&self) -> Self {
        if self.value.abs() < 1e-4 {
            Self::one() - self.powi(2) / 6.0
        } else {
            self.sin() / *self
        }
    }
    fn sph_j1(&self) -> Self {
        if self.value.abs() < 1e-4 {
            *self / 3.0
        } else {
            let (s, c) = self.sin_cos();
            (s - *self * c) / self.powi(2)
        }
    }
    fn sph_j2(&self) -> Self {
        if self.value.abs() < 1e-4 {
            self.powi(2) / 15.0
        } else {
            let (s, c) = self.sin_cos();
            let x2 = self.powi(2);
            ((Self::constant(3.0) - x2) * s - *self * c * 3.0) / (x2 * *self)
        }
    }
}
