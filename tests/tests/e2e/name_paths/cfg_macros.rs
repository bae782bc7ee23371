//! A tokio-like crate: items behind `cfg_*!` macros.

macro_rules! cfg_rt {
    ($($item:item)*) => { $( #[cfg(feature = "rt")] $item )* }
}

macro_rules! cfg_io {
    ($($item:item)*) => { $($item)* }
}

pub struct Builder {
    enable_io: bool,
    workers: usize,
}

cfg_rt! {
    impl Builder {
        /// Enables the I/O driver.
        #[inline]
        pub fn enable_io(&mut self) -> &mut Self {
            self.enable_io = true;
            self
        }

        pub fn worker_threads(&mut self, val: usize) -> &mut Self
        where
            Self: Sized,
        {
            assert!(val > 0, "worker threads cannot be set to 0");
            self.workers = val;
            self
        }
    }

    cfg_io! {
        pub trait AsyncReadExt {
            fn read_u8(&mut self) -> u8;

            fn chain<R>(self, next: R) -> (Self, R)
            where
                Self: Sized,
            {
                (self, next)
            }
        }
    }
}

impl Builder {
    pub const fn new() -> Builder {
        Builder { enable_io: false, workers: 1 }
    }

    pub async fn build(&self) -> Result<usize, String> {
        Ok(self.workers)
    }
}

cfg_io! {
    mod driver {
        pub(crate) unsafe fn park(ms: u64) -> u64 { ms }
    }

    impl<T: Clone> From<Vec<T>> for Builder {
        fn from(v: Vec<T>) -> Self {
            Builder { enable_io: v.is_empty(), workers: v.len() }
        }
    }
}

pub extern "C" fn tokio_entry() -> i32 {
    0
}
